"""Fixtures of the viewer tests: synthetic traces and analysis folders built from them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from viewer_fixtures import XSS_NAME, make_run, synth_trace  # noqa: E402

from gridscope.native import binary  # noqa: E402


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory) -> Path:
    """8 ranks on two metahosts (jsc, brs), 6 iterations, with late senders and NxN waits."""
    base = tmp_path_factory.mktemp("viewer-demo")
    anchor = synth_trace(base / "trace", ranks=8, metahosts=2, iterations=6)
    return make_run(base / "run", anchor)


@pytest.fixture(scope="session")
def xss_run(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("viewer-xss")
    anchor = synth_trace(base / "trace", ranks=4, metahosts=2, iterations=2, region_name=XSS_NAME)
    return make_run(base / "run", anchor)


@pytest.fixture(scope="session")
def wide_run(tmp_path_factory) -> Path:
    """40 ranks on two metahosts: a master sends 8 B to every rank, each rank 1 MiB to its
    neighbour (the matrix's linear scale hides the master's messages; its log scale not),
    then a gather to rank 0 and an allreduce (collective bytes)."""
    base = tmp_path_factory.mktemp("viewer-wide")
    n = 40
    lines = [f"rank {r} {'A' if r < n // 2 else 'B'} {'a' if r < n // 2 else 'b'}{r // 4}" for r in range(n)]
    lines += [f"{r} 0 enter main" for r in range(n)]
    for r in range(1, n):  # the master's small messages, then the ring of large ones
        lines += [f"0 {10 * r} {10 * r + 1} send MPI_Send {r} 1 8", f"{r} {10 * r} {10 * r + 2} recv MPI_Recv 0 1 8"]
    for r in range(n):
        t = 1000 + 10 * r
        lines += [f"{r} {t} {t + 1} send MPI_Send {(r + 1) % n} 2 1048576",
                  f"{(r + 1) % n} {t + 5} {t + 6} recv MPI_Recv {r} 2 1048576"]
    # collectives: a gather of 64 B per rank to rank 0, then an allreduce of 16 B
    lines += [f"{r} 1600 1610 coll MPI_Gather MPI_COMM_WORLD 0 64 {64 * n if r == 0 else 0}" for r in range(n)]
    lines += [f"{r} 1700 1710 coll MPI_Allreduce MPI_COMM_WORLD -1 16 16" for r in range(n)]
    lines += [f"{r} 2000 leave" for r in range(n)]
    spec = base / "wide.spec"
    spec.write_text("\n".join(lines) + "\n")
    subprocess.run([str(binary("gs-tracegen")), str(spec), str(base / "trace")], check=True, capture_output=True)
    return make_run(base / "run", base / "trace" / "traces.otf2")
