"""Hand-built engine output (the files gridscope-replay writes into OUT/.engine) and analysis
folders made from it by the real driver, for tests of the Python side without the engine.

Rows name metrics, classes and call paths; the helper turns them into each process's ids
(call-path ids differ between processes, as the engine's do).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

CLASS_CODE = {"local": 0, "grid": 1, "": 2}
KIND_CODE = {"computation": 0, "communication": 1, "wan": 2}


@dataclass
class Process:
    """One engine process's rows. CALLPATHS: its call-path table (parents first; a path's
    parent is the path without its last region)."""

    callpaths: list[str]
    severities: list[tuple] = field(default_factory=list)  # (metric, class, callpath, rank, value)
    causes: list[tuple] = field(default_factory=list)       # (pattern, class, kind, callpath, rank, waiting metahost, short, long)
    pieces: list[tuple] | None = None                       # (rank, start_s, end_s); None: no file (process 0 only)
    waits: list[tuple] = field(default_factory=list)        # (pattern, class, callpath, rank, start_s, end_s)


def _table(paths: list[str]) -> str:
    lines = []
    for i, path in enumerate(paths):
        parent = path.rpartition("/")[0]
        region = path.rpartition("/")[2]
        lines.append(f"{i}\t{paths.index(parent) if parent else -1}\t{region}\t{int(region.startswith('MPI_'))}\n")
    return "".join(lines)


def write_engine(folder: Path, rank_metahost: list[str], processes: list[Process],
                 root_causes: bool | None = True, meta_extra: dict | None = None) -> Path:
    """Engine files for len(PROCESSES) processes; ROOT_CAUSES None: an engine without them
    (no "root_causes" block, no causes files)."""
    from gridscope.analysis.critical_path_pieces import PIECE_DTYPE
    from gridscope.analysis.engine_files import PAIR_DTYPE, SEV_DTYPE
    from gridscope.analysis.engine_waits import WAIT_COLUMNS
    from gridscope.analysis.metric_tree import ENGINE_METRICS
    from gridscope.analysis.root_causes import CAUSE_DTYPE

    folder.mkdir(parents=True, exist_ok=True)
    metahosts = list(dict.fromkeys(rank_metahost))
    meta = {
        "processes": len(processes), "ranks": len(rank_metahost), "events": 100, "clock_violations": 0,
        "time_correction": {"enabled": False}, "unmatched_sends": 0, "unmatched_receives": 0,
        "incomplete_collectives": 0, "messages": 0, "collectives": 0, "thread_locations": 0, "thread_location_events": 0, "unanalysed_locations": 0,
        "unanalysed_location_events": 0, "repaired_regions": {"misnested": 0, "unclosed": 0, "stray_leave": 0, "truncated": 0, "lost": 0},
        "repair_warnings": [], "rank_node": [f"node{r}" for r in range(len(rank_metahost))],
        "metahosts": metahosts, "rank_metahost": [metahosts.index(m) for m in rank_metahost],
        "clock_offset_locations": 0,
        "process_stats": [{"wait_rows": [len(p.waits), 0, 0, 0], "peak_rss_kb": 1, "read_s": 0.0, "replay_s": 0.0}
                          for p in processes],
    }
    if root_causes is not None:
        meta["root_causes"] = {"enabled": root_causes}
    meta.update(meta_extra or {})
    (folder / "meta.json").write_text(json.dumps(meta))
    for p, proc in enumerate(processes):
        cp = proc.callpaths.index
        (folder / f"callpaths.{p}.tsv").write_text(_table(proc.callpaths))
        np.array([(ENGINE_METRICS.index(m), CLASS_CODE[c], 0, cp(path), r, 0, v)
                  for m, c, path, r, v in proc.severities], SEV_DTYPE).tofile(folder / f"severities.{p}.bin")
        np.zeros(0, PAIR_DTYPE).tofile(folder / f"pairs.{p}.bin")
        if root_causes:
            np.array([(ENGINE_METRICS.index(pat), CLASS_CODE[c], KIND_CODE[k], cp(path), r, metahosts.index(w), s, lg)
                      for pat, c, k, path, r, w, s, lg in proc.causes], CAUSE_DTYPE).tofile(folder / f"causes.{p}.bin")
        if proc.pieces is not None and p == 0:  # process 0 writes the whole path
            np.array([(r, 0, a, b) for r, a, b in proc.pieces], PIECE_DTYPE).tofile(folder / "critical_path.bin")
        columns = {"start": [w[4] for w in proc.waits], "end": [w[5] for w in proc.waits],
                   "cp": [cp(w[2]) for w in proc.waits], "rank": [w[3] for w in proc.waits],
                   "metric": [ENGINE_METRICS.index(w[0]) for w in proc.waits], "cls": [CLASS_CODE[w[1]] for w in proc.waits]}
        for name, dtype in WAIT_COLUMNS:
            np.asarray(columns[name], dtype=dtype).tofile(folder / f"waits.{p}.{name}.bin")
    return folder


def analysis_folder(out: Path, trace: str, rank_metahost: list[str], processes: list[Process],
                    root_causes: bool | None = True, meta_extra: dict | None = None) -> dict:
    """OUT written by the driver from hand-built engine files, as `gridscope analyze` writes it;
    returns the summary. TRACE: what summary.json names as the trace."""
    from gridscope.analysis.driver import write_outputs
    from gridscope.analysis.engine_files import read_head

    scratch = out / ".engine"
    write_engine(scratch, rank_metahost, processes, root_causes, meta_extra)
    head = read_head(scratch)
    summary = write_outputs(scratch, head, out, trace, rank_metahost)
    shutil.rmtree(scratch)
    summary["analysis"] = {"processes": len(processes)}
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    return summary
