"""summary.json: the headline figures of an analysis (shape in issue 4).

numpy over the severity columns (engine_files.SeverityColumns), no Python object per row.
The sums are computed exactly as the earlier pandas code did, so summary.json and the Cube
values do not change by a bit: see group_sums(); totals use numpy's sum (Series.sum).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Sequence

import numpy as np

from gridscope.analysis import critical_path, findings, root_causes, run_shape, wan_links
from gridscope.analysis import names as N
from gridscope.analysis.engine_files import CLASSES_BY_CODE, ENGINE_METRICS, METRIC_ORDER, EngineOutput, SeverityColumns
from gridscope.analysis.metric_tree import PATTERNS
from gridscope.analysis.sums import group_sums

TIME_CODE = ENGINE_METRICS.index(N.TIME)
IS_PATTERN = np.asarray([m in PATTERNS for m in ENGINE_METRICS])  # engine metric code -> is a pattern


def _by(sev: SeverityColumns, where: np.ndarray, labels: Sequence[str], name: str) -> list[dict]:
    """Seconds per (pattern, class, WHERE), largest first; ties in key order (class in code
    order). WHERE: per row a code into LABELS that orders as the labels do."""
    first, sums = group_sums((METRIC_ORDER[sev.metric], sev.cls, where), sev.value)
    positive = np.flatnonzero(sums > 0)
    ordered = positive[np.argsort(-sums[positive], kind="stable")]  # stable: ties keep the key order
    return [{N.PATTERN: ENGINE_METRICS[m], N.CLASS: CLASSES_BY_CODE[c], name: labels[w], "seconds": v}
            for m, c, w, v in zip(sev.metric[first[ordered]].tolist(), sev.cls[first[ordered]].tolist(),
                                  where[first[ordered]].tolist(), sums[ordered].tolist())]


TRANSFER_CODES = np.asarray([ENGINE_METRICS.index(m) for m in N.TRANSFER_BYTES])


def transfers(sev: SeverityColumns, callpath_order: np.ndarray, callpath_by_order: list) -> dict:
    """One-sided and MPI-IO bytes (docs/analyzer.md): totals and per call path, or {} when the
    trace has none (so summaries of traces without them keep their shape)."""
    rows = sev.take(np.isin(sev.metric, TRANSFER_CODES))
    if len(rows) == 0:
        return {}
    first, sums = group_sums((METRIC_ORDER[rows.metric], callpath_order[rows.callpath]), rows.value)
    metric = [ENGINE_METRICS[m] for m in rows.metric[first].tolist()]
    where = callpath_order[rows.callpath[first]].tolist()
    totals = {m: int(sum(v for k, v in zip(metric, sums.tolist()) if k == m)) for m in N.TRANSFER_BYTES}
    by_callpath = [{N.METRIC: m, N.CALLPATH: callpath_by_order[w], N.BYTES: int(v)}
                   for m, w, v in zip(metric, where, sums.tolist())]
    return {N.TRANSFERS: {**totals, "by_callpath": by_callpath}}


def thread_rows(out: EngineOutput) -> list[dict]:
    """Per analysed thread location (a rank's thread that calls MPI; its master is thread 0
    and is not listed): its time, MPI time and waiting, seconds. Every other view sums a
    rank's threads into the rank."""
    sev = out.severities
    rows = np.flatnonzero(sev.thread > 0)
    if not len(rows):
        return []
    sev = sev.take(rows)
    is_time = sev.metric == TIME_CODE
    kinds = {"time_s": is_time, "mpi_s": is_time & out.is_mpi_callpath[sev.callpath],
             "waiting_s": IS_PATTERN[sev.metric]}
    threads = sorted(set(zip(sev.rank.tolist(), sev.thread.tolist())))
    table = {key: {N.RANK: key[0], "thread": key[1], **{k: 0.0 for k in kinds}} for key in threads}
    for kind, mask in kinds.items():
        first, sums = group_sums((sev.rank[mask], sev.thread[mask]), sev.value[mask])
        for r, t, v in zip(sev.rank[mask][first].tolist(), sev.thread[mask][first].tolist(), sums.tolist()):
            table[(r, t)][kind] = v
    return [table[key] for key in threads]


def build_summary(out: EngineOutput, trace: str, rank_metahost: list[str]) -> dict:
    meta = out.meta
    sev = out.severities
    is_time = sev.metric == TIME_CODE
    time_values = sev.value[is_time]
    mpi_values = sev.value[is_time & out.is_mpi_callpath[sev.callpath]]
    patterns = sev.take(IS_PATTERN[sev.metric])
    first, sums = group_sums((METRIC_ORDER[patterns.metric], patterns.cls), patterns.value)
    per_class = {(ENGINE_METRICS[m], CLASSES_BY_CODE[c]): v for m, c, v in
                 zip(patterns.metric[first].tolist(), patterns.cls[first].tolist(), sums.tolist())}
    pattern_totals = {p: {c: float(per_class.get((p, c), 0.0)) for c in N.CLASSES} for p in PATTERNS}
    metahosts, metahost_code = np.unique(np.asarray(rank_metahost, dtype=object), return_inverse=True)
    callpath_order = out.callpath_order
    callpath_by_order = [None] * len(out.callpaths)
    for index, position in enumerate(callpath_order.tolist()):
        callpath_by_order[position] = out.callpaths[index]
    p2p = [
        {"from": r.source, "to": r.target, "bytes": int(r.bytes), "messages": int(r.messages),
         "max_rate_Bps": float(r.max_rate_Bps),
         "min_transfer_s": 0.0 if math.isnan(r.min_transfer_s) else float(r.min_transfer_s)}
        for r in out.pairs if r.messages > 0
    ]
    shape = run_shape.shape_keys(out)
    metahost_names = out.meta.get("metahosts", [])
    caused = wan_links.caused_by_link(out.causes, out.wan_sources, rank_metahost, metahost_names)
    return {
        "trace": trace,
        # the run's shape first: duration, start-up/shutdown apart (docs/analyzer.md)
        **shape,
        **findings.findings_keys(out, rank_metahost, shape["run"]["application_s"]),
        "ranks": int(meta["ranks"]),
        "metahosts": dict(Counter(rank_metahost)),
        "events": int(meta["events"]),
        "total_time_s": float(np.sum(time_values)),
        "mpi_time_s": float(np.sum(mpi_values)),
        "clock_violations": int(meta["clock_violations"]),
        "time_correction": meta["time_correction"],
        # whose rules where gridscope and Scalasca differ (docs/root-causes.md, "Rules")
        "rules": str(meta.get("rules", N.RULES_SCALASCA)),
        "unmatched_messages": {"sends": int(meta["unmatched_sends"]),
                               "receives": int(meta["unmatched_receives"])},
        "incomplete_collectives": int(meta["incomplete_collectives"]),
        "messages": int(meta["messages"]),
        "collectives": int(meta["collectives"]),
        # the ranks' threads that call MPI, analysed with their ranks (docs/analyzer.md) ...
        "thread_locations": {"locations": int(meta["thread_locations"]),
                             "events": int(meta["thread_location_events"])},
        "threads": thread_rows(out),
        # ... and the other locations besides the ranks' master threads: counted, not analysed
        "unanalysed_locations": {"locations": int(meta["unanalysed_locations"]),
                                 "events": int(meta["unanalysed_location_events"])},
        # user regions repaired while reading (mis-nested, never left, stray Leaves): docs/analyzer.md
        "repaired_regions": {**{k: int(v) for k, v in meta["repaired_regions"].items()},
                             "warnings": list(meta["repair_warnings"])},
        "patterns": pattern_totals,
        "by_callpath": _by(patterns, callpath_order[patterns.callpath], callpath_by_order, N.CALLPATH),
        "by_metahost": _by(patterns, metahost_code[patterns.rank], metahosts.tolist(), N.METAHOST),
        "p2p": p2p,
        "wan_links": wan_links.link_rows(out.pairs, caused, wan_links.nominal_routes(trace)),
        **transfers(sev, callpath_order, callpath_by_order),
        # why: delay costs, wait-state classes, the critical path (docs/root-causes.md)
        **root_causes.summary_keys(out, rank_metahost),
        N.CRITICAL_PATH: critical_path.summary_rows(out, critical_path.metrics(out), rank_metahost),
    }
