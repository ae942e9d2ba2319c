"""The run's shape, the first thing a summary says: its duration (first event to last), the
critical path, and how the time between MPI_Init and MPI_Finalize splits into MPI and
waiting. MPI_Init* and MPI_Finalize are kept apart: they hold the start-up and shutdown,
including the measurement's own clock synchronisation (Cube files them under MPI >
Management too)."""

from __future__ import annotations

import numpy as np

from gridscope.analysis import names as N
from gridscope.analysis.engine_files import EngineOutput
from gridscope.analysis.metric_tree import ENGINE_METRICS, PATTERNS

INIT_FINALIZE_REGIONS = frozenset({"MPI_Init", "MPI_Init_thread", "MPI_Finalize"})
TIME_CODE = ENGINE_METRICS.index(N.TIME)
PATTERN_CODES = np.asarray([ENGINE_METRICS.index(p) for p in PATTERNS])


def duration_s(meta: dict) -> float | None:
    """Last event minus first event over every rank read (None: an engine without the span)."""
    span = meta.get("time_range_ticks")
    if not span:
        return None
    return (int(span[1]) - int(span[0])) / float(meta["resolution"])


def in_init_finalize(callpath: str) -> bool:
    """Whether CALLPATH is an MPI_Init*/MPI_Finalize call or runs inside one."""
    return not INIT_FINALIZE_REGIONS.isdisjoint(callpath.split("/"))


def shape_keys(out: EngineOutput) -> dict:
    """summary.json's `duration_s`, `init_finalize_s` and `run` block."""
    sev = out.severities
    start_up = np.fromiter((in_init_finalize(p) for p in out.callpaths), dtype=bool, count=len(out.callpaths))
    is_time = sev.metric == TIME_CODE
    in_app = ~start_up[sev.callpath]
    total = float(np.sum(sev.value[is_time]))
    init_finalize = float(np.sum(sev.value[is_time & ~in_app]))
    app = total - init_finalize
    mpi = float(np.sum(sev.value[is_time & in_app & out.is_mpi_callpath[sev.callpath]]))
    waiting = float(np.sum(sev.value[np.isin(sev.metric, PATTERN_CODES) & in_app]))
    block = out.meta.get("root_causes") or {}
    path = block.get("critical_path_length_s") if block.get("enabled") else None
    duration = duration_s(out.meta)
    return {
        "duration_s": duration,
        "init_finalize_s": init_finalize,
        "run": {
            "duration_s": duration,
            "critical_path_s": None if path is None else float(path),
            # summed over ranks, MPI_Init* and MPI_Finalize left out
            "application_s": app,
            "application_mpi_s": mpi,
            "application_waiting_s": waiting,
            "mpi_share": mpi / app if app > 0 else None,
            "waiting_share": waiting / app if app > 0 else None,
        },
    }
