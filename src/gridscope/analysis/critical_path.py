"""The critical path: its profile in summary.json and the metrics Scalasca derives from it.

The engine charges the critical-path profile (seconds on the path per call path and rank,
metric `critical_path`). From it and each rank's time without waits this module computes,
as Scalasca's scout does at the end of its critical-path analysis
(`src/scout/generator/CriticalPath.pattern`; Böhme et al., IPDPS 2012; docs/root-causes.md):

- critical-path imbalance: per call path c, max(0, cp(c) - mean over all ranks of t(c, r)),
  shared among the ranks in proportion to their time on the path;
- activity impact: min(cp(c), t(c, r)) for call paths on the path;
- critical-path imbalance impact: rank r's waiting W(r) = L - sum_c t(c, r) (L = the path's
  length) shared among the call paths by their excess e(c, r) = max(0, cp(c) - t(c, r)),
  summed over ranks per call path and charged in proportion to the ranks' time on the path;
- non-critical-path activities: max(0, t(c, r) - cp(c)).

cp(c) is the profile summed over ranks, t(c, r) rank r's time in c without the wait states
the critical path skips (metric_tree.PATH_WAIT_PATTERNS: the delay patterns and Wait at
Finalize, as scout), at least 0. Call paths of one
region-name path are one call path here, as in the Cube file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from gridscope.analysis import names as N
from gridscope.analysis.engine_files import EngineOutput, SeverityColumns
from gridscope.analysis.metric_tree import ENGINE_METRICS, PATH_WAIT_PATTERNS
from gridscope.analysis.sums import group_sums

PATH_CODE = ENGINE_METRICS.index(N.CRITICAL_PATH)
TIME_CODE = ENGINE_METRICS.index(N.TIME)
PATH_WAIT_CODES = np.asarray([ENGINE_METRICS.index(p) for p in PATH_WAIT_PATTERNS], dtype=np.uint16)
# Derived metrics (patterns.toml kind "derived")
IMBALANCE = "critical_path_imbalance"
ACTIVITY_IMPACT = "critical_path_activities"
IMBALANCE_IMPACT = "critical_imbalance_impact"
NON_CRITICAL = "non_critical_path_activities"
DERIVED = (IMBALANCE, ACTIVITY_IMPACT, IMBALANCE_IMPACT, NON_CRITICAL)


@dataclass(frozen=True)
class CallpathRankValues:
    """Values per (call path, rank): index into EngineOutput.callpaths, rank, value; each key
    once, in (call path string, rank) order."""

    callpath: np.ndarray
    rank: np.ndarray
    value: np.ndarray

    def __len__(self) -> int:
        return len(self.value)


@dataclass(frozen=True)
class CriticalPathMetrics:
    """The profile and the derived metrics (exclusive values; empty when there is no path)."""

    profile: CallpathRankValues                  # critical_path as charged
    derived: dict[str, CallpathRankValues]       # DERIVED name -> values (positive ones)


def _summed(out: EngineOutput, sev: SeverityColumns) -> CallpathRankValues:
    first, sums = group_sums((out.callpath_order[sev.callpath], sev.rank), sev.value)
    return CallpathRankValues(sev.callpath[first], sev.rank[first], sums)


def _keys(out: EngineOutput, values: CallpathRankValues) -> np.ndarray:
    """One int64 per (call path, rank) that orders as (call path string, rank)."""
    return (out.callpath_order[values.callpath].astype(np.int64) << 32) + values.rank.astype(np.int64)


def time_without_waits(out: EngineOutput) -> CallpathRankValues:
    """t(c, r): time minus the wait states of PATH_WAIT_PATTERNS, at least 0 (Scalasca subtracts
    min(time, wait)), for every (call path, rank) with time."""
    sev = out.severities
    time = _summed(out, sev.take(sev.metric == TIME_CODE))
    waits = _summed(out, sev.take(np.isin(sev.metric, PATH_WAIT_CODES)))
    time_key, wait_key = _keys(out, time), _keys(out, waits)
    waited = np.zeros(len(time_key))
    if len(time_key) and len(wait_key):
        at = np.minimum(np.searchsorted(time_key, wait_key), len(time_key) - 1)
        known = time_key[at] == wait_key  # a wait is inside a call, so its key has time
        waited[at[known]] = waits.value[known]
    return CallpathRankValues(time.callpath, time.rank, np.maximum(time.value - waited, 0.0))


def _by_callpath(values: CallpathRankValues, callpaths: int) -> np.ndarray:
    """Sum over ranks per call path index (in the values' order, which is fixed)."""
    out = np.zeros(callpaths)
    np.add.at(out, values.callpath, values.value)
    return out


def compute(out: EngineOutput, ranks: int, rules: str = N.RULES_SCALASCA) -> CriticalPathMetrics:
    """The critical-path metrics of OUT over RANKS ranks (the run's, also those without events),
    under RULES (N.RULES: they differ in the imbalance impact, see below)."""
    sev = out.severities
    profile = _summed(out, sev.take(sev.metric == PATH_CODE))
    positive = profile.value > 0
    profile = CallpathRankValues(profile.callpath[positive], profile.rank[positive], profile.value[positive])
    if len(profile) == 0 or ranks == 0:
        return CriticalPathMetrics(profile, {})
    n = len(out.callpaths)
    times = time_without_waits(out)
    on_path = _by_callpath(profile, n)           # cp(c)
    length = float(np.sum(on_path[out.callpath_order.argsort()]))  # L, summed in call-path string order
    own = np.zeros(ranks)                        # sum_c t(c, r)
    np.add.at(own, times.rank, times.value)
    path_cps = np.flatnonzero(on_path > 0)       # the call paths on the path, K of them
    row_of = np.full(n, -1)
    row_of[path_cps] = np.arange(len(path_cps))
    spent = np.zeros((len(path_cps), ranks))     # t(c, r) for c on the path
    mine = row_of[times.callpath] >= 0
    spent[row_of[times.callpath[mine]], times.rank[mine]] = times.value[mine]
    share = np.zeros((len(path_cps), ranks))     # the ranks' shares of the path: cp(c, r) / cp(c)
    share[row_of[profile.callpath], profile.rank] = profile.value / on_path[profile.callpath]
    total = on_path[path_cps]

    imbalance = np.maximum(total - spent.sum(axis=1) / ranks, 0.0)
    excess = np.maximum(total[:, None] - spent, 0.0)
    excess_sum = excess.sum(axis=0)
    waiting = length - own
    scale = np.divide(waiting, excess_sum, out=np.zeros(ranks), where=excess_sum > 0)
    impact = (excess * scale).sum(axis=1)        # the call paths' imbalance costs, all ranks
    if rules == N.RULES_SCALASCA and np.any(excess_sum < 0.5 / float(out.meta.get("resolution", 1e9))):
        # a rank without excess (under half a tick): scout divides by its zero excess and the
        # NaN, summed over ranks, reaches every call path, so nothing is charged anywhere;
        # gridscope's rules leave that rank out (docs/root-causes.md, "Rules")
        impact = np.zeros_like(impact)
    derived = {
        IMBALANCE: _dense(path_cps, share * imbalance[:, None], out),
        IMBALANCE_IMPACT: _dense(path_cps, share * impact[:, None], out),
        ACTIVITY_IMPACT: _rows(times, np.where(on_path[times.callpath] > 0,
                                               np.minimum(on_path[times.callpath], times.value), 0.0)),
        NON_CRITICAL: _rows(times, np.maximum(times.value - on_path[times.callpath], 0.0)),
    }
    return CriticalPathMetrics(profile, derived)


def metrics(out: EngineOutput) -> CriticalPathMetrics:
    """compute(OUT) once per EngineOutput: kept on it, as a cached property would be."""
    cached = out.__dict__.get("_critical_path_metrics")
    if cached is None:
        cached = compute(out, int(out.meta.get("ranks", 0)), str(out.meta.get("rules", N.RULES_SCALASCA)))
        out.__dict__["_critical_path_metrics"] = cached
    return cached


def _dense(path_cps: np.ndarray, matrix: np.ndarray, out: EngineOutput) -> CallpathRankValues:
    """The positive entries of a (call path on the path x rank) matrix, in key order."""
    k, r = np.nonzero(matrix > 0)
    cps = path_cps[k]
    order = np.lexsort((r, out.callpath_order[cps]))
    return CallpathRankValues(cps[order], r[order].astype(np.int32), matrix[k, r][order])


def _rows(times: CallpathRankValues, values: np.ndarray) -> CallpathRankValues:
    keep = values > 0
    return CallpathRankValues(times.callpath[keep], times.rank[keep], values[keep])


def _per_metahost(out: EngineOutput, values: CallpathRankValues, host_code: np.ndarray):
    where = host_code[values.rank]
    first, sums = group_sums((out.callpath_order[values.callpath], where), values.value)
    return {(int(values.callpath[i]), int(where[i])): float(v) for i, v in zip(first.tolist(), sums.tolist())}


def summary_rows(out: EngineOutput, metrics: CriticalPathMetrics, rank_metahost: Sequence[str]) -> list[dict]:
    """summary.json `critical_path`: seconds on the path (and the imbalance part of them) per
    call path and metahost, summed over its ranks; most seconds first, ties in key order."""
    if len(metrics.profile) == 0:
        return []
    hosts, host_code = np.unique(np.asarray(rank_metahost, dtype=object), return_inverse=True)
    seconds = _per_metahost(out, metrics.profile, host_code)
    imbalance = _per_metahost(out, metrics.derived.get(IMBALANCE, CallpathRankValues(
        np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0))), host_code)
    keys = sorted(seconds, key=lambda k: (int(out.callpath_order[k[0]]), k[1]))
    keys.sort(key=lambda k: -seconds[k])  # stable: ties keep the key order
    return [{N.CALLPATH: out.callpaths[cp], N.METAHOST: str(hosts[host]), N.SECONDS: seconds[(cp, host)],
             N.IMBALANCE_S: imbalance.get((cp, host), 0.0)} for cp, host in keys]
