#!/usr/bin/env python3
"""Import the MPI standard's C API into mpi_std.py (generation time only).

    import_standard.py [--mpi-h PATH] [--smpi-h PATH] [--mpich-h PATH] [--ompi-lib DIR]
                       [--mpich-fort LIB] [--check] [OUT]

Reads the MPI Forum's machine-readable API description (the `pympistandard` package,
pinned in pyproject.toml's `wrapgen` extra) and keeps the C procedures that the MPI
library's mpi.h (Open MPI's) declares, with the standard's parameter names and types. Each
kept signature is checked against mpi.h (parameter types after normalising spelling): a
difference keeps the function out, so a wrapper can never disagree with the library.
Functions that SimGrid SMPI's mpi.h or MPICH's mpi_proto.h lack (or declare with other
types) are listed so those builds leave them out.

For the Fortran bindings it records each kept procedure's Fortran parameters (the
standard's `mpif.h`/`use mpi` binding: names and types, so the generator knows which are
CHARACTER, passed with a hidden length) and, from the dynamic symbols of Open MPI's
Fortran libraries, which procedures Open MPI binds as `ompi_<name>_f` (the entry point
both `mpif.h`/`use mpi` and `use mpi_f08` reach) and which of its `mpi_f08` procedures
call the `mpif.h` binding's `pmpi_<name>_` instead (their f08 entry point is wrapped).

The output is committed: building and testing need neither this script nor pympistandard
(generate.py reads mpi_std.py). tests/collector/test_wrapgen_standard.py reruns the import
with --check where pympistandard is installed.
"""

from __future__ import annotations

import argparse
import bisect
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OMPI_MPI_H = Path("/usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h")
OMPI_LIB = Path("/usr/lib/x86_64-linux-gnu/openmpi/lib")  # libmpi_mpifh.so, libmpi_usempif08.so
MPICH_FORT = Path("/usr/lib/x86_64-linux-gnu/libmpichfort.so")  # MPICH's Fortran bindings
SMPI_MPI_H = Path("/usr/include/smpi/smpi.h")  # SMPI declares its MPI API here
# Debian libmpich-dev: MPICH declares its API in mpi_proto.h, MPI-IO (ROMIO) in mpio.h
MPICH_MPI_H = Path("/usr/include/x86_64-linux-gnu/mpich/mpi_proto.h")
MPICH_MPIO_H = MPICH_MPI_H.with_name("mpio.h")
PYMPISTANDARD_VERSION = "0.2.0"

# `int MPI_X(...) ATTRIBUTES;` (MPICH's attributes carry argument numbers)
_DECL = re.compile(r"\bint\s+(MPI_[A-Za-z0-9_]+)\s*\(([^;]*?)\)\s*[A-Z_()\s\d,]*;", re.S)
_SMPI_DECL = re.compile(r"MPI_CALL\s*\(\s*XBT_PUBLIC\s+int\s*,\s*(MPI_[A-Za-z0-9_]+)\s*,\s*\(([^;]*?)\)\s*\)\s*;",
                        re.S)


def _strip_comments(text: str) -> str:
    return re.sub(r"/\*.*?\*/", " ", text, flags=re.S)


def _norm_param(decl: str) -> str:
    """'const int recvcounts[]' and 'const int *recvcounts' -> 'const int*'."""
    decl = " ".join(decl.split())
    if decl in ("void", ""):
        return ""
    arrays = decl.count("[]")
    decl = decl.replace("[]", "")
    m = re.match(r"^(.*?)([A-Za-z_][A-Za-z0-9_]*)$", decl)
    if m and m.group(1).strip() and not m.group(1).strip().endswith(","):
        decl = m.group(1)  # drop the parameter name
    decl = decl.replace(" ", "").replace("*", "*")
    return decl + "*" * arrays


def _norm_sig(params: str) -> tuple[str, ...]:
    return tuple(p for p in (_norm_param(x) for x in params.split(",")) if p)


def header_decls(path: Path, pattern: re.Pattern[str]) -> dict[str, tuple[str, ...]]:
    text = _strip_comments(path.read_text(errors="replace"))
    return {m.group(1): _norm_sig(m.group(2)) for m in pattern.finditer(text)}


def standard_signatures() -> dict[str, str]:
    import pympistandard as std  # generation-time dependency only

    if std.__version__ != PYMPISTANDARD_VERSION:
        raise SystemExit(f"import_standard.py: pympistandard {std.__version__}, "
                         f"expected {PYMPISTANDARD_VERSION} (pyproject.toml extra 'wrapgen')")
    std.use_api_version(1)
    out = {}
    for proc in std.PROCEDURES.values():
        c = proc.express.iso_c
        if c is None:
            continue
        text = str(c)
        m = re.match(r"^int (MPI_\w+)\((.*)\)$", text)
        if m:
            out[m.group(1)] = "" if m.group(2) == "void" else m.group(2)
    return out


def _standard_binding(language: str) -> dict[str, tuple[tuple[str, str], ...]]:
    """name -> the LANGUAGE binding's parameters (lower-case name, type), its ierror left out."""
    import pympistandard as std

    std.use_api_version(1)
    out = {}
    for proc in std.PROCEDURES.values():
        binding, c = getattr(proc.express, language), proc.express.iso_c
        if binding is None or c is None:
            continue
        name = re.match(r"^int (MPI_\w+)\(", str(c))
        if name:
            out[name.group(1)] = tuple((p.name.lower(), p.type) for p in binding.parameters
                                       if p.name.lower() != "ierror")
    return out


def standard_fortran() -> dict[str, tuple[tuple[str, str], ...]]:
    """name -> the mpif.h binding's parameters (lower-case name, Fortran type), IERROR left
    out (every binding ends with it)."""
    return _standard_binding("f90")


def standard_f08() -> dict[str, tuple[tuple[str, str], ...]]:
    """name -> the mpi_f08 binding's parameters (lower-case name, f08 type), ierror left out
    (optional in every binding: NULL when absent)."""
    return _standard_binding("f08")


def dynamic_symbols(lib: Path, defined: bool) -> set[str]:
    """The dynamic symbols a shared library defines (or, defined=False, needs)."""
    proc = subprocess.run(["nm", "-D", "--defined-only" if defined else "--undefined-only",
                           str(lib)], capture_output=True, text=True, check=True)
    return {line.split()[-1] for line in proc.stdout.splitlines() if line.strip()}


def ompi_fortran(names: list[str], libdir: Path) -> tuple[list[str], list[str]]:
    """(kept procedures without an Open MPI Fortran binding, those whose mpi_f08 binding
    calls the mpif.h binding's pmpi_<name>_ rather than ompi_<name>_f)."""
    mpifh = dynamic_symbols(libdir / "libmpi_mpifh.so", True)
    f08_needs = dynamic_symbols(libdir / "libmpi_usempif08.so", False)
    lacking, f08_direct = [], []
    for name in names:
        low = name.lower().removeprefix("mpi_")
        if f"ompi_{low}_f" not in mpifh or f"pmpi_{low}_" not in mpifh:
            lacking.append(name)
        elif f"pmpi_{low}_" in f08_needs:
            f08_direct.append(name)
    return lacking, f08_direct


class Disassembly:
    """A shared library's machine code as `objdump -d` prints it, cut into functions: a
    function starts at a dynamic symbol or at the target of a call."""

    _INSN = re.compile(r"^\s+([0-9a-f]+):\s+(.*)$")
    _BRANCH = re.compile(r"^(call|jmp)\s+([0-9a-f]+) <([^>]+)>")

    def __init__(self, lib: Path):
        text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(lib)],
                              capture_output=True, text=True, check=True).stdout
        self.insns = [(int(m.group(1), 16), m.group(2))
                      for m in map(self._INSN.match, text.splitlines()) if m]
        self.addrs = [a for a, _ in self.insns]
        nm = subprocess.run(["nm", "-D", "--defined-only", str(lib)], capture_output=True,
                            text=True, check=True).stdout
        self.symbols = {p[2]: int(p[0], 16) for p in map(str.split, nm.splitlines())
                        if len(p) == 3 and p[1] in "TW"}
        starts = set(self.symbols.values())
        for _, insn in self.insns:
            m = self._BRANCH.match(insn)
            if m and m.group(1) == "call":
                starts.add(int(m.group(2), 16))
        self.starts = sorted(starts)

    def _body(self, start: int):
        i = bisect.bisect_right(self.starts, start)
        end = self.starts[i] if i < len(self.starts) else 1 << 64
        j = bisect.bisect_left(self.addrs, start)
        while j < len(self.insns) and self.insns[j][0] < end:
            yield self.insns[j][1]
            j += 1

    def calls(self, symbol: str, depth: int = 2) -> set[str]:
        """The library functions (PLT entries) `symbol` calls or jumps to, itself or
        through the local functions it calls (up to `depth` levels)."""
        out: set[str] = set()
        todo, seen = [(self.symbols[symbol], depth)], set()
        while todo:
            start, left = todo.pop()
            if start in seen:
                continue
            seen.add(start)
            for insn in self._body(start):
                m = self._BRANCH.match(insn)
                if not m:
                    continue
                if m.group(3).endswith("@plt"):
                    out.add(m.group(3).removesuffix("@plt"))
                elif m.group(1) == "call" and left > 0:
                    todo.append((int(m.group(2), 16), left - 1))
        return out


def mpich_f08(names: list[str], lib: Path) -> tuple[dict[str, str], list[str]]:
    """({procedure: its mpi_f08 entry point} for those that reach PMPI_<Name> without
    MPI_<Name>, the procedures whose mpi_f08 entry point calls MPI_<Name>)."""
    code = Disassembly(lib)
    direct, via_c = {}, []
    for name in names:
        low = name.lower()
        symbol = next((s for s in (f"{low}_f08_", f"{low}_f08ts_") if s in code.symbols), None)
        if symbol is None:
            continue
        called = code.calls(symbol)
        if name in called:
            via_c.append(name)
        elif "P" + name in called:
            direct[name] = symbol
    return direct, via_c


def render(mpi_h: Path, smpi_h: Path | None, mpich_h: Path, ompi_lib: Path,
           mpich_fort: Path) -> str:
    std = standard_signatures()
    fortran = standard_fortran()
    f08 = standard_f08()
    lib = header_decls(mpi_h, _DECL)
    smpi = header_decls(smpi_h, _SMPI_DECL) if smpi_h else {}
    mpich = {**header_decls(mpich_h.with_name(MPICH_MPIO_H.name), _DECL),
             **header_decls(mpich_h, _DECL)}
    # mpio.h: `#define MPIO_Request MPI_Request` (HAVE_MPI_GREQUEST is set by MPICH)
    mpich = {n: tuple(t.replace("MPIO_Request", "MPI_Request") for t in sig)
             for n, sig in mpich.items()}
    kept, lacking, differ = {}, [], []
    for name in sorted(std):
        if name not in lib:
            lacking.append(name)
            continue
        if _norm_sig(std[name]) != lib[name]:
            differ.append(f"{name}: standard {_norm_sig(std[name])} vs mpi.h {lib[name]}")
            continue
        kept[name] = std[name]
    not_in_smpi = sorted(n for n in kept if smpi_h and n not in smpi)
    not_in_mpich = sorted(n for n in kept if mpich.get(n) != _norm_sig(kept[n]))
    no_ompi_fortran, ompi_f08_direct = ompi_fortran(sorted(kept), ompi_lib)
    mpich_direct, mpich_via_c = mpich_f08(sorted(n for n in kept if n not in not_in_mpich),
                                          mpich_fort)
    lines = [
        '"""GENERATED by collector/wrapgen/import_standard.py: do not edit.',
        "",
        f"C procedures of the MPI standard (pympistandard {PYMPISTANDARD_VERSION}, the MPI Forum's",
        f"apis.json) that {mpi_h.name} at {mpi_h.parent} declares with the same parameter types.",
        '"""',
        "",
    ]

    def listing(comment: list[str], header: str, rows: list[str], close: str) -> None:
        lines.extend([*comment, header, *rows, close, ""])

    def names(comment: list[str], name: str, items, kind: str = "frozenset") -> None:
        opening, close = ("frozenset[str] = frozenset({", "})") if kind == "frozenset" else ("tuple[str, ...] = (", ")")
        listing(comment, f"{name}: {opening}", [f"    {n!r}," for n in items], close)

    listing(["# name -> parameters as the standard writes them (names and C types)"],
            "SIGNATURES: dict[str, str] = {", [f"    {n!r}: {s!r}," for n, s in kept.items()], "}")
    names(["# in the standard, not in the library's mpi.h (never wrapped)"], "NOT_IN_LIBRARY", lacking, "tuple")
    names(["# declared by mpi.h with other parameter types than the standard's (never wrapped)"],
          "TYPES_DIFFER", differ, "tuple")
    names(["# wrapped for Open MPI but missing from SimGrid SMPI's mpi.h (left out of that build)"],
          "NOT_IN_SMPI", not_in_smpi)
    names([f"# wrapped for Open MPI but missing from MPICH's {mpich_h.name} and {MPICH_MPIO_H.name} or declared",
           "# there with other parameter types (left out of that build)"], "NOT_IN_MPICH", not_in_mpich)
    listing(["# name -> parameters of the mpif.h / `use mpi` binding (name, Fortran type), IERROR",
             "# left out; CHARACTER parameters come with a hidden length after IERROR"],
            "FORTRAN: dict[str, tuple[tuple[str, str], ...]] = {",
            [f"    {n!r}: {fortran[n]!r}," for n in kept if n in fortran], "}")
    names(["# without an Open MPI Fortran binding ompi_<name>_f (never wrapped for Fortran)"],
          "NO_OMPI_FORTRAN", no_ompi_fortran)
    names(["# Open MPI's mpi_f08 binding calls pmpi_<name>_ (the mpif.h binding) directly, not",
           "# ompi_<name>_f: its f08 entry point mpi_<name>_f08_ is wrapped as well"],
          "OMPI_F08_DIRECT", ompi_f08_direct)
    listing(["# MPICH's mpi_f08 binding (libmpichfort.so) reaches PMPI_<Name> without MPI_<Name>:",
             "# name -> (its entry point, the binding's parameters (name, f08 type), ierror left",
             "# out); the MPICH build wraps these entry points"],
            "MPICH_F08_DIRECT: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {",
            [f"    {n!r}: ({s!r}, {f08[n]!r})," for n, s in mpich_direct.items() if n in f08], "}")
    names(["# MPICH's mpi_f08 binding calls MPI_<Name>: the C wrapper records these"],
          "MPICH_F08_VIA_C", mpich_via_c)
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?", default=str(HERE / "mpi_std.py"))
    ap.add_argument("--mpi-h", default=str(OMPI_MPI_H))
    ap.add_argument("--smpi-h", default=str(SMPI_MPI_H))
    ap.add_argument("--mpich-h", default=str(MPICH_MPI_H))
    ap.add_argument("--ompi-lib", default=str(OMPI_LIB))
    ap.add_argument("--mpich-fort", default=str(MPICH_FORT))
    ap.add_argument("--check", action="store_true", help="exit 1 if OUT differs")
    a = ap.parse_args(argv)
    smpi = Path(a.smpi_h) if Path(a.smpi_h).exists() else None
    for need in (Path(a.mpich_h), Path(a.ompi_lib) / "libmpi_mpifh.so", Path(a.mpich_fort)):
        if not need.exists():
            print(f"import_standard.py: {need}: missing (install libmpich-dev and "
                  "libopenmpi-dev)", file=sys.stderr)
            return 3
    text = render(Path(a.mpi_h), smpi, Path(a.mpich_h), Path(a.ompi_lib), Path(a.mpich_fort))
    out = Path(a.out)
    if a.check:
        if not out.exists() or out.read_text() != text:
            print(f"import_standard.py: {out}: stale (rerun import_standard.py)", file=sys.stderr)
            return 1
        return 0
    out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
