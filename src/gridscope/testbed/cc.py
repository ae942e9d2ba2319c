"""`gridscope cc`: compile an MPI program for real Open MPI (mpicc) or for the simulated
metacomputer (smpicc with the collector, and the topology-aware collectives when built,
linked in whole: SMPI sees PMPI wrappers only when they are part of the executable).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from gridscope import native
from gridscope.errors import GridscopeError

MPICC = "mpicc"
SMPICC = "smpicc"
COLLECTOR_SMPI = "libgridscope_collector_smpi.a"
COLL_SMPI = "libgridscope_coll_smpi.a"


@dataclass(frozen=True)
class CompileCommand:
    argv: list[str]
    archives: list[Path]  # linked in whole (simulated builds)


def _optional_include() -> list[str]:
    try:
        return [f"-I{native.include_dir()}"]
    except GridscopeError:
        return []


def _otf2_libs() -> list[str]:
    try:
        out = subprocess.run(["pkg-config", "--libs", "otf2"], capture_output=True,
                             text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        raise GridscopeError("otf2", "pkg-config cannot find OTF2; install "
                             "libopen-trace-format2-dev") from None
    return out.split()


def simulated_archives() -> list[Path]:
    """The collector (required) and the collectives library (when installed)."""
    lib_dir = native.native_dir() / "lib"
    collector = lib_dir / COLLECTOR_SMPI
    if not collector.is_file():
        raise GridscopeError(collector, "the SimGrid build of the collector is missing, so "
                             "`gridscope cc --simulate` cannot link it; build and install the "
                             "collector (make install) or set GRIDSCOPE_NATIVE_DIR")
    archives = [collector]
    coll = lib_dir / COLL_SMPI
    if coll.is_file():
        archives.append(coll)
    return archives


def compile_command(args: list[str], output: Path, simulate: bool) -> CompileCommand:
    """The compiler command line for sources/flags ARGS producing OUTPUT."""
    compile_only = "-c" in args
    if not simulate:
        return CompileCommand([MPICC, *_optional_include(), *args, "-o", str(output)], [])
    argv = [SMPICC, *_optional_include(), *args, "-o", str(output)]
    archives: list[Path] = []
    if not compile_only:
        archives = simulated_archives()
        argv += ["-Wl,--whole-archive", *map(str, archives), "-Wl,--no-whole-archive",
                 *_otf2_libs(), "-lstdc++", "-lm"]
    return CompileCommand(argv, archives)


def split_output(args: list[str]) -> tuple[list[str], Path]:
    """Take `-o BIN` (or `-oBIN`) out of compiler arguments."""
    rest: list[str] = []
    output: Path | None = None
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "-o":
            if i + 1 >= len(args):
                raise GridscopeError(None, "-o needs the name of the executable to write")
            output = Path(args[i + 1])
            i += 2
            continue
        if arg.startswith("-o") and len(arg) > 2:
            output = Path(arg[2:])
        else:
            rest.append(arg)
        i += 1
    if output is None:
        raise GridscopeError(None, "give the executable to write with -o BIN")
    return rest, output


def compile_program(args: list[str], output: Path, simulate: bool,
                    echo: bool = False) -> CompileCommand:
    if not args:
        raise GridscopeError(None, "no source files given")
    for arg in args:
        if arg.endswith((".c", ".cc", ".cpp", ".cxx")) and not Path(arg).is_file():
            raise GridscopeError(arg, "source file does not exist")
    command = compile_command(args, output, simulate)
    compiler = command.argv[0]
    if shutil.which(compiler) is None:
        package = "libsimgrid-dev" if simulate else "libopenmpi-dev"
        raise GridscopeError(compiler, f"compiler not found; install {package}")
    if echo:
        print(" ".join(command.argv), file=sys.stderr, flush=True)
    proc = subprocess.run(command.argv)  # compiler messages go straight to the user
    if proc.returncode != 0:
        raise GridscopeError(output, f"{compiler} failed (exit {proc.returncode}); "
                             "see its messages above")
    return command
