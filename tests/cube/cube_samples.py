"""Small experiments and analysis folders with known values, shared by the cube, diff and
report tests (tests/diff and tests/report put this folder on sys.path in their conftest).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from gridscope.cube import Experiment, Metric, write_cubex
from gridscope.cube.model import make_locations

PATTERNS = ("late_sender", "wrong_order", "late_receiver", "wait_at_barrier",
            "barrier_completion", "wait_at_nxn", "nxn_completion", "late_broadcast",
            "early_reduce", "early_scan")

METRICS = (
    Metric("time", "Time", "sec", "Total time", children=(
        Metric("mpi", "MPI", "sec", "Time in MPI", children=(
            Metric("late_sender", "Late Sender", "sec", "Receiver waits for sender",
                   children=(Metric("wrong_order", "Messages in Wrong Order", "sec"),)),
            Metric("wait_at_barrier", "Wait at Barrier", "sec"),
            Metric("wait_at_nxn", "Wait at N x N", "sec"),
        )),
    )),
    Metric("visits", "Visits", "occ", dtype="UINT64"),
    Metric("bytes_sent", "Bytes sent", "bytes", dtype="UINT64"),
)

BASE_CALLPATHS = (
    "main",
    "main/cgiteration",
    "main/cgiteration/MPI_Recv",
    "main/cgiteration/MPI_Allreduce",
    "main/ReadFieldsFromTrace",
    "main/ReadFieldsFromTrace/MPI_Barrier",
)


def experiment(scale: float = 1.0, ranks: int = 4, extra_path: bool = False,
               metahosts: tuple[str, str] = ("jsc", "brs")) -> Experiment:
    """A two-metahost run: rank r spends known seconds in each call path.

    SCALE multiplies the waiting times (a smaller SCALE is an "optimised" cycle);
    EXTRA_PATH adds main/cgiteration/MPI_Irecv (a call tree that changed).
    """
    paths = list(BASE_CALLPATHS)
    if extra_path:
        paths.insert(3, "main/cgiteration/MPI_Irecv")
    half = ranks // 2
    locations = make_locations(range(ranks),
                               [metahosts[0] if r < half else metahosts[1] for r in range(ranks)],
                               [f"{metahosts[0] if r < half else metahosts[1]}-n{r // 2}"
                                for r in range(ranks)])
    rows = []
    for r in range(ranks):
        rows += [
            ("time", "main", r, 1.0 + 0.1 * r),
            ("time", "main/cgiteration", r, 4.0),
            ("mpi", "main/cgiteration/MPI_Recv", r, 1.0 * scale + 0.5),
            ("late_sender", "main/cgiteration/MPI_Recv", r, 0.75 * scale),
            ("wrong_order", "main/cgiteration/MPI_Recv", r, 0.125 * scale),
            ("mpi", "main/cgiteration/MPI_Allreduce", r, 0.25),
            ("wait_at_nxn", "main/cgiteration/MPI_Allreduce", r, 0.5 * scale),
            ("mpi", "main/ReadFieldsFromTrace/MPI_Barrier", r, 0.25),
            ("wait_at_barrier", "main/ReadFieldsFromTrace/MPI_Barrier", r, 2.0 * scale * (r < half)),
            ("visits", "main/cgiteration/MPI_Recv", r, 100 + r),
            ("bytes_sent", "main/cgiteration", r, 4096 * (r + 1)),
        ]
        if extra_path:
            rows.append(("mpi", "main/cgiteration/MPI_Irecv", r, 0.0625))
    sev = pd.DataFrame(rows, columns=["metric", "callpath", "rank", "value"])
    sev = sev[sev.value != 0].reset_index(drop=True).astype({"rank": "int32"})
    return Experiment(METRICS, tuple(paths), locations, sev, {"gridscope::sample": "yes"})


def totals(exp: Experiment) -> dict[str, float]:
    """Metric-inclusive totals over everything: what summary.json's totals mean."""
    sev = exp.severities
    time_total = float(sev[sev.metric.isin(["time", "mpi", "late_sender", "wrong_order",
                                            "wait_at_barrier", "wait_at_nxn"])].value.sum())
    mpi_total = float(sev[sev.metric.isin(["mpi", "late_sender", "wrong_order",
                                           "wait_at_barrier", "wait_at_nxn"])].value.sum())
    return {"total_time_s": time_total, "mpi_time_s": mpi_total}


def summary(exp: Experiment) -> dict:
    """A summary.json (issue 4's shape) consistent with EXP; grid = metahost-crossing."""
    sev = exp.severities
    ranks = len(exp.locations)
    half = ranks // 2
    meta = dict(exp.locations.groupby("metahost", sort=False).size().astype(int))
    patterns = {p: {"grid": 0.0, "local": 0.0} for p in PATTERNS}
    by_callpath = []
    by_metahost = []
    # In this sample the barrier and the receives are grid, the allreduce local.
    klass = {"late_sender": "grid", "wrong_order": "local", "wait_at_barrier": "grid",
             "wait_at_nxn": "local"}
    for pattern, cls in klass.items():
        part = sev[sev.metric == pattern]
        patterns[pattern][cls] = float(part.value.sum())
        for path, seconds in part.groupby("callpath").value.sum().items():
            by_callpath.append({"pattern": pattern, "class": cls, "callpath": path,
                                "seconds": float(seconds)})
        merged = part.merge(exp.locations, on="rank")
        for mh, seconds in merged.groupby("metahost").value.sum().items():
            by_metahost.append({"pattern": pattern, "class": cls, "metahost": mh,
                                "seconds": float(seconds)})
    names = list(meta)
    p2p = []
    for a in names:
        for b in names:
            same = a == b
            p2p.append({"from": a, "to": b, "bytes": (4_000_000 if same else 500_000) * ranks,
                        "messages": 40 if same else 8,
                        "max_rate_Bps": 2.0e8 if same else 4.7e7,
                        "min_transfer_s": 2.7e-5 if same else 8.6e-4})
    del half
    return {"ranks": ranks, "metahosts": {k: int(v) for k, v in meta.items()},
            "events": 1000 * ranks, **totals(exp), "clock_violations": 0,
            "patterns": patterns, "by_callpath": by_callpath, "by_metahost": by_metahost,
            "p2p": p2p}


def analysis_folder(folder: Path, exp: Experiment) -> Path:
    """An analysis folder as `gridscope analyze -o FOLDER` makes (profile + summary)."""
    folder.mkdir(parents=True, exist_ok=True)
    write_cubex(exp, folder / "profile.cubex")
    (folder / "summary.json").write_text(json.dumps(summary(exp), indent=1))
    return folder


def run_cli(*args, check: bool = True, timeout: float | None = None):
    """Run `python -m gridscope ARGS` the way users do; check=True fails on non-zero exit."""
    import subprocess
    import sys

    import pytest

    cmd = [sys.executable, "-m", "gridscope", *map(str, args)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        pytest.fail(f"{' '.join(cmd)} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc
