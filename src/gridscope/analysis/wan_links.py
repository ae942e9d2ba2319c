"""WAN links as objects of their own: per direction between two metahosts, what crossed it,
how fast, what waiting it caused, and the platform's nominal figures when the run was
simulated on a known platform (docs/analyzer.md, "WAN links").

Transfer times are measured on *ready* messages only (the receive was posted, and the call
completing it had waited for at least half the transfer, before the message arrived): other
messages' times hold the receiver's lateness, not the network's. Latency is the shortest
ready transfer of a small message (under LARGE_MESSAGE_BYTES); bandwidth is the fastest large ready transfer's bytes over its time, less the
latency when smaller messages gave it. Minima are robust here: anything that disturbs a
transfer time (a call completing several requests records them at its end) lengthens it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

import numpy as np

from gridscope.analysis import names as N
from gridscope.analysis.engine_files import LARGE_MESSAGE_BYTES, Pair

RECORD_SETTINGS = "record.json"  # written by the testbed's `record --platform` beside the trace


def split_wan_causes(causes, wan_sources, rank_metahost: Sequence[str], metahosts: Sequence[str]) -> list[tuple]:
    """Each WAN cause row split among the links into its site: (row, source metahost, share).
    The share of a source is its part of the WAN excess that the delaying rank's call path saw
    (root_causes.WanSources); without any (an older engine), the cause stays whole, source None."""
    wan = N.CAUSE_KINDS.index(N.WAN)
    weights: dict[tuple[int, int], dict[str, float]] = {}
    if wan_sources is not None:
        for cp, rank, source, seconds in zip(wan_sources.callpath.tolist(), wan_sources.rank.tolist(),
                                             wan_sources.source.tolist(), wan_sources.seconds.tolist()):
            per = weights.setdefault((cp, rank), {})
            per[metahosts[source]] = per.get(metahosts[source], 0.0) + seconds
    out = []
    for row in np.flatnonzero(causes.kind == wan).tolist():
        per = weights.get((int(causes.callpath[row]), int(causes.rank[row])))
        total = sum(per.values()) if per else 0.0
        if not total:
            out.append((row, None, 1.0))
            continue
        for source, seconds in sorted(per.items()):
            if source != rank_metahost[int(causes.rank[row])]:
                out.append((row, source, seconds / total))
    return out


def caused_by_link(causes, wan_sources, rank_metahost: Sequence[str], metahosts: Sequence[str]) -> dict:
    """Seconds of waiting (delay costs, short + long term) caused by each WAN direction."""
    out: dict[tuple[str, str], float] = {}
    if causes is None:
        return out
    total = causes.short_s + causes.long_s
    for row, source, share in split_wan_causes(causes, wan_sources, rank_metahost, metahosts):
        if source is None:
            continue
        key = (source, rank_metahost[int(causes.rank[row])])
        out[key] = out.get(key, 0.0) + share * float(total[row])
    return out


def nominal_routes(trace: str) -> dict[tuple[str, str], dict] | None:
    """The platform's WAN routes (latency, bandwidth) when the trace was recorded by the
    testbed on a platform that can still be loaded; else None."""
    settings = Path(trace).parent / RECORD_SETTINGS
    try:
        spec = json.loads(settings.read_text()).get("platform")
    except (OSError, ValueError, AttributeError):
        return None
    if not isinstance(spec, str) or not spec:
        return None
    from gridscope.errors import GridscopeError
    from gridscope.testbed.platform import load_platform

    try:
        platform = load_platform(spec.removeprefix("preset "))
    except (GridscopeError, OSError, ValueError, KeyError):
        return None
    return {(r.src, r.dst): {"latency_s": r.latency, "bandwidth_Bps": r.bandwidth, "platform": platform.name}
            for r in platform.routes}


def _bandwidth(pair: Pair, latency: float | None) -> float | None:
    if not pair.large_messages or pair.large_seconds <= 0:
        return None
    seconds = pair.large_seconds
    if latency is not None:
        less = seconds - latency
        seconds = less if less > 0.1 * seconds else seconds
    return pair.large_bytes / seconds


def link_rows(pairs: Sequence[Pair], caused: dict, nominal: dict | None) -> list[dict]:
    """summary.json `wan_links`: one row per direction between two metahosts that carried
    point-to-point messages, most waiting caused first (then by name)."""
    rows = []
    for p in pairs:
        if p.source == p.target or p.messages == 0:
            continue
        latency = None if np.isnan(p.ready_min_s) else float(p.ready_min_s)
        rows.append({
            "from": p.source, "to": p.target, "messages": int(p.messages), "bytes": int(p.bytes),
            "measured_messages": int(p.ready_messages),
            "latency_s": latency,
            "mean_transfer_s": p.ready_seconds / p.ready_messages if p.ready_messages else None,
            "large_messages": int(p.large_messages),  # ready ones of at least LARGE_MESSAGE_BYTES
            "bandwidth_Bps": _bandwidth(p, latency),
            "waiting_caused_s": float(caused.get((p.source, p.target), 0.0)),
            "nominal": (nominal or {}).get((p.source, p.target)),
        })
    rows.sort(key=lambda r: (-r["waiting_caused_s"], r["from"], r["to"]))
    return rows


LARGE_MESSAGE_TEXT = f"{LARGE_MESSAGE_BYTES // 1024} KiB"
