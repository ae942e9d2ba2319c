# Settings shared by the top-level build and by each component built on its own
# (cmake -S collector -B build/dev-collector). Include once.
include_guard(GLOBAL)

set(CMAKE_C_STANDARD 11)
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE Release)
endif()

option(GS_BUILD_TESTS "Build the C/C++ unit tests (ctest)" ON)

# Installed layout. Under the Python build (scikit-build-core) the native parts land
# inside the package; a plain `cmake --install --prefix P` gives P/bin, P/lib, ...
if(SKBUILD)
  set(GS_NATIVE_PREFIX "gridscope/_native")
else()
  set(GS_NATIVE_PREFIX ".")
endif()
set(GS_BINDIR "${GS_NATIVE_PREFIX}/bin")
set(GS_LIBDIR "${GS_NATIVE_PREFIX}/lib")
set(GS_INCLUDEDIR "${GS_NATIVE_PREFIX}/include")
set(GS_DATADIR "${GS_NATIVE_PREFIX}/share")
set(CMAKE_INSTALL_RPATH "$ORIGIN/../lib")

find_package(PkgConfig REQUIRED)
pkg_check_modules(OTF2 REQUIRED IMPORTED_TARGET otf2)
find_package(MPI REQUIRED COMPONENTS C CXX)
find_package(Python3 REQUIRED COMPONENTS Interpreter)

if(GS_BUILD_TESTS)
  enable_testing()
  # The ctest TIMEOUT of every test that runs MPI ranks: a bound for a hung run, far above
  # what a loaded 2-core machine needs (the 11-rank checkers take 7 s alone and timed out
  # at 120 s at load ~10 while they spun). Oversubscribed Open MPI ranks must also yield
  # (OMPI_MCA_mpi_yield_when_idle=1 in each test environment) instead of spinning.
  set(GS_MPI_TEST_TIMEOUT 3600)
endif()
