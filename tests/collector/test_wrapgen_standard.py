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


def test_mpi_std_is_current():
    pytest.importorskip("pympistandard", reason="pip install '.[wrapgen]'")
    proc = subprocess.run([sys.executable, str(WRAPGEN / "import_standard.py"), "--check"],
                          capture_output=True, text=True)
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
