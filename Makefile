# gridscope: `make demo` runs the main job, `make test` runs every test.
# Both install what they need first (Debian packages when missing, the package into .venv/).

VENV        := .venv
PY          := $(VENV)/bin/python
GRIDSCOPE   := $(VENV)/bin/gridscope
NATIVE_BUILD := build/skbuild
SUDO        := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Build and run-time needs: compilers (C, Fortran), Open MPI and MPICH (the collector is
# built for each; Debian keeps Open MPI the default mpicc/mpirun), OTF2 (library and
# tools), SimGrid.
DEB_PACKAGES := build-essential gfortran cmake ninja-build pkg-config python3-venv \
                libopenmpi-dev openmpi-bin libmpich-dev mpich libopen-trace-format2-dev \
                otf2-tools libsimgrid-dev libgtest-dev
# Only the tests need these: a browser for the report/viewer checks, PDF rasteriser,
# node for the Playwright browser tests (Node >= 20; npm ships with NodeSource's nodejs,
# Debian's needs its own npm package).
TEST_DEB_PACKAGES := chromium poppler-utils nodejs
BROWSER_TESTS := tests/viewer

# Tests and demo run MPI as root inside containers.
export OMPI_ALLOW_RUN_AS_ROOT := 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM := 1
export OMPI_MCA_rmaps_base_oversubscribe := 1

.PHONY: install deps test-deps test demo clean

define apt_install_missing
	@missing=$$(for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "Installing Debian packages:" $$missing; \
	  $(SUDO) apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi
endef

deps:
	$(call apt_install_missing,$(DEB_PACKAGES))

test-deps:
	$(call apt_install_missing,$(TEST_DEB_PACKAGES))
	@command -v npm >/dev/null || $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null
	@[ -d $(BROWSER_TESTS)/node_modules ] || (cd $(BROWSER_TESTS) && npm ci --no-audit --no-fund --silent)

$(PY):
	python3 -m venv $(VENV)

install: deps $(PY)
	$(PY) -m pip install -q --disable-pip-version-check ".[test]"
	@echo "gridscope installed: $(GRIDSCOPE)"

test: install test-deps
	ctest --test-dir $(NATIVE_BUILD) --output-on-failure -j2
	$(PY) -m pytest -q tests

demo: install
	$(GRIDSCOPE) demo

clean:
	rm -rf build $(VENV)
