"""Fortran entry points of the Open MPI build (fwrappers.c), from the same description.

Open MPI's Fortran bindings (`mpif.h`, `use mpi`, `use mpi_f08`) call `PMPI_` directly, so
the C wrappers never see a Fortran program's calls. Both `mpif.h`/`use mpi` (symbols
`mpi_send_` and its other manglings) and `mpi_f08` (whose `mpi_send_f08_` calls
`ompi_send_f`) reach Open MPI's `ompi_<name>_f`; the collector defines that function and
the manglings as one entry point, which records the same events as the C wrapper (the
family templates of generate.py, on C values decoded from the Fortran arguments) and has
the library's own binding `pmpi_<name>_` do the work. Only the arguments the family's
events read are decoded; the call gets the caller's arguments unchanged (except a
status the caller ignores, which the events need). Where Open MPI's `mpi_f08` binding
calls `pmpi_<name>_` itself (mpi_std.OMPI_F08_DIRECT), its `mpi_<name>_f08_` is wrapped the
same way around `pmpi_<name>_f08_`.

The Fortran ABI (gfortran, Open MPI): every argument by reference, INTEGER and LOGICAL as
MPI_Fint, then IERROR (optional in mpi_f08: may be NULL), then a hidden length per
CHARACTER argument.
"""

from __future__ import annotations

import re
from typing import Callable

from mpi_api import API, Arg, Fn

F2C = {"MPI_Comm": "PMPI_Comm_f2c", "MPI_Datatype": "PMPI_Type_f2c",
       "MPI_Group": "PMPI_Group_f2c", "MPI_Info": "PMPI_Info_f2c", "MPI_Op": "PMPI_Op_f2c",
       "MPI_Win": "PMPI_Win_f2c", "MPI_File": "PMPI_File_f2c",
       "MPI_Request": "PMPI_Request_f2c"}
NULL = {"MPI_Comm": "MPI_COMM_NULL", "MPI_Datatype": "MPI_DATATYPE_NULL",
        "MPI_Group": "MPI_GROUP_NULL", "MPI_Info": "MPI_INFO_NULL", "MPI_Op": "MPI_OP_NULL",
        "MPI_Win": "MPI_WIN_NULL", "MPI_File": "MPI_FILE_NULL",
        "MPI_Request": "MPI_REQUEST_NULL"}
# Families whose events read an in-out handle before the call (the others after it).
READ_BEFORE = {"wait", "test", "cancel", "request_free", "comm_free", "file_close", "win_free"}
# Fortran indices count from 1 (Open MPI's waitany/testany/waitsome bindings add 1).
ONE_BASED = {"index", "indices"}


def _base(a: Arg) -> str:
    return a.ctype.removeprefix("const ").rstrip("*")


def _name(a: Arg) -> str:
    return a.name.removesuffix("[]")


def _is_array(a: Arg) -> bool:
    return a.name.endswith("[]")


def fparams(f: Fn) -> list[tuple[str, str]]:
    """(C type, name) of the Fortran entry point's parameters, IERROR and hidden lengths
    included."""
    out = []
    for name, ftype in f.fortran:
        if ftype.startswith("CHARACTER"):
            out.append(("char *", f"f_{name}"))
        elif ftype in ("INTEGER", "LOGICAL"):
            out.append(("MPI_Fint *", f"f_{name}"))
        else:  # choice buffers, INTEGER(KIND=...): passed on untouched
            out.append(("void *", f"f_{name}"))
    out.append(("MPI_Fint *", "ierr"))
    out += [("size_t", f"f_{name}_len") for name, ftype in f.fortran
            if ftype.startswith("CHARACTER")]
    return out


def _decl(ps: list[tuple[str, str]]) -> str:
    return ", ".join(f"{t}{'' if t.endswith('*') else ' '}{n}" for t, n in ps) or "void"


def _call(f: Fn, callee: str) -> str:
    return f"{callee}({', '.join(n for _, n in fparams(f))});\n"


def _used(code: str, f: Fn) -> list[Arg]:
    return [a for a in f.args if re.search(rf"\b{_name(a)}\b", code)]


def conversions(f: Fn, code: str) -> tuple[str, str, str]:
    """(before the call, after it, cleanup): C locals named as the C wrapper's parameters,
    for the parameters `code` (the family's event code) reads."""
    before, after, cleanup = [], [], []
    used = _used(code, f)
    n = f.arg("n") if f.has("n") else ""
    for a in sorted(used, key=lambda a: _is_array(a)):  # scalars first: arrays need n, comm
        name, base, fa = _name(a), _base(a), f"f_{_name(a)}"
        if base == "int" and not _is_array(a) and not a.ctype.endswith("*"):
            before.append(f"int {name} = (int)*{fa};")
        elif base == "int" and _is_array(a) and a.ctype.startswith("const"):
            before.append(f"const int *{name} = (const int *){fa};")
        elif base == "int" and not _is_array(a):  # int* result (flag, index, outcount)
            before.append(f"int {name}_v = 0, *{name} = &{name}_v;")
            value = f"(int)*{fa}"
            if name in ONE_BASED:
                value = f"*{fa} == MPI_UNDEFINED ? MPI_UNDEFINED : {value} - 1"
            after.append(f"{name}_v = {value};")
        elif base == "int":  # indices[] of waitsome/testsome: outcount entries
            out = f.arg("outcount")
            before.append(f"int *{name} = malloc((size_t)({n} > 0 ? {n} : 1) * sizeof(int));")
            after.append(f"for (int i = 0; i < *{out} && *{out} != MPI_UNDEFINED; i++) "
                         f"{name}[i] = {fa}[i] - 1;")
            cleanup.append(f"free({name});")
        elif base == "char":  # CHARACTER: blank-padded, its length passed after IERROR
            before.append(f"char *{name} = gs_fstr({fa}, {fa}_len);")
            cleanup.append(f"free({name});")
        elif base == "void":
            before.append(f"const void *{name} = gs_fbuf({fa});")
        elif base == "MPI_Status" and not _is_array(a):
            before.append(f"MPI_Fint gs_fst[GS_F_STATUS_SIZE];\n"
                          f"    if (gs_fstatus_ignored({fa})) {fa} = gs_fst;\n"
                          f"    MPI_Status {name}_v, *{name} = &{name}_v;")
            after.append(f"PMPI_Status_f2c({fa}, {name});")
        elif base == "MPI_Status":
            count = f"*{f.arg('outcount')}" if f.family == "waitsome" else n
            before.append(
                f"MPI_Fint *gs_fsts = NULL;\n"
                f"    if (gs_fstatuses_ignored({fa}))\n"
                f"        {fa} = gs_fsts = malloc((size_t)({n} > 0 ? {n} : 1) * "
                f"GS_F_STATUS_SIZE * sizeof(MPI_Fint));\n"
                f"    MPI_Status *{name} = malloc((size_t)({n} > 0 ? {n} : 1) * "
                f"sizeof(MPI_Status));")
            after.append(f"for (int i = 0; i < {count} && {count} != MPI_UNDEFINED; i++)\n"
                         f"        PMPI_Status_f2c({fa} + i * GS_F_STATUS_SIZE, &{name}[i]);")
            cleanup += [f"free({name});", "free(gs_fsts);"]
        elif base == "MPI_Request" and _is_array(a):
            before.append(f"MPI_Request *{name} = malloc((size_t)({n} > 0 ? {n} : 1) * "
                          f"sizeof(MPI_Request));\n"
                          f"    for (int i = 0; i < {n}; i++) {name}[i] = PMPI_Request_f2c({fa}[i]);")
            cleanup.append(f"free({name});")
        elif base == "MPI_Datatype" and _is_array(a):
            neighbor = int("eighbor" in f.name)
            before.append(f"MPI_Datatype *{name} = gs_f2c_types({fa}, {f.arg('comm')}, "
                          f"{neighbor});")
            cleanup.append(f"free({name});")
        elif base in F2C and a.ctype.endswith("*"):  # in-out or out handle
            before.append(f"{base} {name}_v = {NULL[base]}, *{name} = &{name}_v;")
            (before if f.family in READ_BEFORE else after).append(
                f"{name}_v = {F2C[base]}(*{fa});")
        elif base in F2C:
            before.append(f"{base} {name} = {F2C[base]}(*{fa});")
        else:
            raise ValueError(f"{f.name}: no Fortran decoding for {a.ctype} {a.name}")
    return tuple("".join(f"    {line}\n" for line in part) for part in (before, after, cleanup))


def measured(f: Fn, symbol: str, callee: str, families: Callable[[Fn], tuple[str, str]]) -> str:
    """The entry point `symbol`: the family's events around the library's `callee`."""
    if [name for name, _ in f.fortran] != [_name(a) for a in f.args]:
        # decoding finds each C parameter's Fortran argument by its name
        raise ValueError(f"{f.name}: Fortran parameters {f.fortran} differ from C's {f.args}")
    pre, post = families(f)
    before, after, cleanup = conversions(f, pre + post)
    region = f"GS_REGION_{f.name}"
    return (
        f"GS_PUBLIC void {symbol}({_decl(fparams(f))})\n{{\n"
        f"    if (!gs_on()) {{\n        {_call(f, callee)}        return;\n    }}\n"
        f"    uint64_t t = gs_enter({region});\n"
        f"{before}{pre}"
        f"    {_call(f, callee)}"
        f"    int rc = ierr ? (int)*ierr : MPI_SUCCESS;\n"
        f"    uint64_t t2 = gs_time();\n"
        f"{after}{post}{cleanup}"
        f"    gs_leave_at({region}, t2);\n"
        f"    (void)t, (void)rc;\n}}\n"
    )


def special(f: Fn, symbol: str, callee: str) -> str:
    """Start, end and abort of the measurement."""
    head = f"GS_PUBLIC void {symbol}({_decl(fparams(f))})\n{{\n"
    if f.family == "init":
        return (head + "    uint64_t t0 = gs_init_time();\n"
                f"    {_call(f, callee)}"
                "    if (!ierr || *ierr == MPI_SUCCESS)\n"
                f"        gs_measurement_init(NULL, NULL, t0, GS_REGION_{f.name});\n}}\n")
    if f.family == "finalize":
        return head + f"    gs_measurement_finalize_begin();\n    {_call(f, callee)}}}\n"
    if f.family == "abort":
        return head + f"    gs_measurement_abort((int)*f_errorcode);\n    {_call(f, callee)}}}\n"
    raise ValueError(f.name)


def manglings(low: str) -> list[str]:
    """The names Open MPI gives a Fortran procedure (one per compiler convention)."""
    return [f"mpi_{low}_", f"mpi_{low}", f"mpi_{low}__", f"MPI_{low.upper()}"]


def entry(f: Fn, symbol: str, callee: str, families: Callable[[Fn], tuple[str, str]]) -> str:
    decl = _decl(fparams(f))
    body = (special(f, symbol, callee) if f.family in ("init", "finalize", "abort")
            else measured(f, symbol, callee, families))
    return f"extern void {callee}({decl}) __attribute__((weak));\n{body}"


def render(head: str, families: Callable[[Fn], tuple[str, str]]) -> str:
    out = [head, "#include <stdlib.h>\n\n#include \"collector.h\"\n#include \"fortran.h\"\n\n",
           "_Static_assert(sizeof(MPI_Fint) == sizeof(int), \"Fortran INTEGER is a C int\");\n\n"]
    for f in API:
        if f.fortran is None:
            continue
        low = f.name.lower().removeprefix("mpi_")
        symbol = f"ompi_{low}_f"
        out.append(entry(f, symbol, f"pmpi_{low}_", families))
        decl = _decl(fparams(f))
        for alias in manglings(low):
            out.append(f"GS_PUBLIC void {alias}({decl}) __attribute__((alias(\"{symbol}\")));\n")
        if f.f08_direct:
            out.append(entry(f, f"mpi_{low}_f08_", f"pmpi_{low}_f08_", families))
        out.append("\n")
    return "".join(out)
