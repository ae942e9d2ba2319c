"""summary.json: the headline figures of an analysis (shape in issue 4)."""

from __future__ import annotations

from collections import Counter

import pandas as pd

from gridscope.analysis import names as N
from gridscope.analysis.engine_files import EngineOutput
from gridscope.analysis.metric_tree import PATTERNS


def _by(frame: pd.DataFrame, keys: list[str]) -> list[dict]:
    grouped = frame.groupby(keys, observed=True, sort=True)[N.VALUE].sum().reset_index()
    grouped = grouped[grouped[N.VALUE] > 0].sort_values(N.VALUE, ascending=False, kind="stable")
    rows = []
    for rec in grouped.itertuples(index=False):
        row = {N.PATTERN: rec[0], N.CLASS: rec[1], keys[2]: rec[2], "seconds": float(rec[3])}
        rows.append(row)
    return rows


def build_summary(out: EngineOutput, trace: str, rank_metahost: list[str]) -> dict:
    meta = out.meta
    sev = out.severities
    time = sev[sev[N.METRIC] == N.TIME]
    patterns = sev[sev[N.METRIC].isin(PATTERNS)].rename(columns={N.METRIC: N.PATTERN})
    per_class = patterns.groupby([N.PATTERN, N.CLASS], observed=True)[N.VALUE].sum()
    pattern_totals = {p: {c: float(per_class.get((p, c), 0.0)) for c in N.CLASSES} for p in PATTERNS}
    with_host = patterns.assign(**{N.METAHOST: [rank_metahost[r] for r in patterns[N.RANK]]})
    p2p = [
        {"from": r["from"], "to": r["to"], "bytes": int(r["bytes"]), "messages": int(r["messages"]),
         "max_rate_Bps": float(r["max_rate_Bps"]),
         "min_transfer_s": 0.0 if pd.isna(r["min_transfer_s"]) else float(r["min_transfer_s"])}
        for _, r in out.pairs[out.pairs["messages"] > 0].iterrows()
    ]
    return {
        "trace": trace,
        "ranks": int(meta["ranks"]),
        "metahosts": dict(Counter(rank_metahost)),
        "events": int(meta["events"]),
        "total_time_s": float(time[N.VALUE].sum()),
        "mpi_time_s": float(time[time[N.CALLPATH].isin(out.mpi_callpaths)][N.VALUE].sum()),
        "clock_violations": int(meta["clock_violations"]),
        "time_correction": meta["time_correction"],
        "unmatched_messages": {"sends": int(meta["unmatched_sends"]),
                               "receives": int(meta["unmatched_receives"])},
        "incomplete_collectives": int(meta["incomplete_collectives"]),
        "messages": int(meta["messages"]),
        "collectives": int(meta["collectives"]),
        "patterns": pattern_totals,
        "by_callpath": _by(patterns, [N.PATTERN, N.CLASS, N.CALLPATH]),
        "by_metahost": _by(with_host, [N.PATTERN, N.CLASS, N.METAHOST]),
        "p2p": p2p,
    }
