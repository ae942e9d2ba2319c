"""The committed MPI API (collector/wrapgen/mpi_std.py) is what import_standard.py makes
from the MPI Forum's standard (pympistandard, a test extra) and this machine's mpi.h, and
the wrapper description only uses what it provides."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

WRAPGEN = Path(__file__).resolve().parents[2] / "collector" / "wrapgen"
sys.path.insert(0, str(WRAPGEN))


MISSING_INPUT = 3  # import_standard.py: MPICH's headers or Open MPI's Fortran libraries absent


def test_mpi_std_is_current():
    pytest.importorskip("pympistandard", reason="pip install '.[wrapgen]'")
    proc = subprocess.run([sys.executable, str(WRAPGEN / "import_standard.py"), "--check"],
                          capture_output=True, text=True)
    if proc.returncode == MISSING_INPUT:
        pytest.skip(proc.stderr.strip())
    assert proc.returncode == 0, proc.stderr


def test_mpi4_functions_open_mpi_lacks_are_not_wrapped():
    import mpi_api
    import mpi_std

    # MPI-4 persistent collectives and MPI_Isendrecv are in the standard, not in Open MPI 4.1
    for name in ("MPI_Allreduce_init", "MPI_Barrier_init", "MPI_Isendrecv"):
        assert name in mpi_std.NOT_IN_LIBRARY
        assert name not in mpi_std.SIGNATURES
    wrapped = {f.name for f in mpi_api.API}
    assert wrapped <= set(mpi_std.SIGNATURES)
    with pytest.raises(KeyError, match="MPI_Allreduce_init"):
        mpi_api.fn("MPI_Allreduce_init", "plain")


def test_signatures_are_the_standards():
    import mpi_api

    send = next(f for f in mpi_api.API if f.name == "MPI_Sendrecv")
    assert [a.name for a in send.args][:5] == ["sendbuf", "sendcount", "sendtype", "dest",
                                               "sendtag"]
    assert (send.arg("peer"), send.arg("tag"), send.arg("count")) == ("dest", "sendtag",
                                                                       "sendcount")


def test_fortran_bindings_come_from_the_standard():
    import mpi_api
    import mpi_std

    # CHARACTER arguments (passed with a hidden length) are marked as the standard types them
    assert mpi_std.FORTRAN["MPI_File_open"] == (
        ("comm", "INTEGER"), ("filename", "CHARACTER*(*)"), ("amode", "INTEGER"),
        ("info", "INTEGER"), ("fh", "INTEGER"))
    assert mpi_std.FORTRAN["MPI_Init"] == ()  # Fortran's MPI_INIT has IERROR only
    by_name = {f.name: f for f in mpi_api.API}
    # Open MPI's mpi_f08 MPI_Test calls pmpi_test_ (LOGICAL flag) instead of ompi_test_f
    assert by_name["MPI_Test"].f08_direct and not by_name["MPI_Send"].f08_direct
    assert all(f.fortran is not None for f in mpi_api.API)  # Open MPI binds every one


def test_generated_fortran_entry_points(tmp_path):
    import generate

    text = generate.render()["fwrappers.c"]
    # both Open MPI entry points of a procedure: the binding's own and its manglings
    assert "GS_PUBLIC void ompi_send_f(" in text
    assert 'GS_PUBLIC void mpi_send_(void *f_buf' in text and 'alias("ompi_send_f")' in text
    assert "GS_PUBLIC void mpi_test_f08_(" in text and "GS_PUBLIC void mpi_send_f08_(" not in text
    # hidden length after IERROR for the CHARACTER argument, forwarded unchanged
    assert ("void ompi_comm_set_name_f(MPI_Fint *f_comm, char *f_comm_name, MPI_Fint *ierr, "
            "size_t f_comm_name_len)") in text


def test_mpich_f08_bindings_are_classified():
    import mpi_api
    import mpi_std

    wrapped = {f.name for f in mpi_api.API}
    direct, via_c = set(mpi_std.MPICH_F08_DIRECT), mpi_std.MPICH_F08_VIA_C
    # every wrapped function's MPICH mpi_f08 entry point either reaches the C wrapper or is
    # wrapped itself: none is lost, none recorded twice
    assert wrapped <= direct | via_c and not direct & via_c
    # buffers (f08ts_, a C descriptor) go through MPI_Send; handles only: PMPI_Wait
    assert "MPI_Send" in via_c and "MPI_Allreduce" in via_c
    assert mpi_std.MPICH_F08_DIRECT["MPI_Wait"] == (
        "mpi_wait_f08_", (("request", "TYPE(MPI_Request)"), ("status", "TYPE(MPI_Status)")))
    assert mpi_std.MPICH_F08_DIRECT["MPI_Init"] == ("mpi_init_f08_", ())


def test_generated_mpich_f08_entry_points():
    import generate

    text = generate.render()["f08wrappers.c"]
    # the f08 ABI: handles as MPI_Fint*, C's MPI_Status, optional ierror, hidden lengths
    assert ("GS_PUBLIC void mpi_wait_f08_(MPI_Fint *f_request, MPI_Status *f_status, "
            "MPI_Fint *ierr)") in text
    assert ("GS_PUBLIC void mpi_comm_set_name_f08_(MPI_Fint *f_comm, char *f_comm_name, "
            "MPI_Fint *ierr, size_t f_comm_name_len)") in text
    assert 'gs_f08_next("mpi_wait_f08_")' in text
    assert "mpi_send_f08ts_" not in text  # reaches the C wrapper MPI_Send
