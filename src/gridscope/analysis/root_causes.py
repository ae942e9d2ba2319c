"""Delay costs and wait-state classes: the "why" of the waiting (docs/root-causes.md).

The engine writes, per analysis process, `causes.<p>.bin` (CAUSE_DTYPE, one row per
(pattern, class, kind, call path, rank, waiting metahost)); the delay and wait-class
metrics themselves are ordinary severity rows. This module reads the causes, merges the
processes' call paths by name, and turns them into summary.json's `root_causes` (per cause
call path x cause metahost x kind x pattern x class) and `cause_pairs` (per metahost pair),
and the severity rows into `wait_classes`. Every sum runs over rows in one canonical order,
so the figures do not depend on the number of engine processes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, NamedTuple, Sequence

import numpy as np

from gridscope.analysis import names as N
from gridscope.analysis.engine_files import CLASSES_BY_CODE, METRIC_ORDER, SeverityColumns, string_order
from gridscope.analysis.metric_tree import DELAY_PATTERNS, ENGINE_METRICS, METRICS
from gridscope.analysis.sums import group_sums
from gridscope.errors import GridscopeError

CAUSES_FILE = "causes.{process}.bin"
CAUSE_DTYPE = np.dtype([("pattern", "<u2"), ("cls", "u1"), ("kind", "u1"), ("cp", "<u4"), ("rank", "<u4"),
                        ("wait_metahost", "<u4"), ("short", "<f8"), ("long", "<f8")])
assert CAUSE_DTYPE.itemsize == 32  # analyzer: struct CauseRow
DELAY_PATTERN_CODES = np.asarray([ENGINE_METRICS.index(p) for p in DELAY_PATTERNS], dtype=np.uint16)
GRID_LOCAL_CODES = (0, 1)  # engine class codes of local, grid (a cause always has one)
# wait-class metric code -> its class name (direct, indirect, propagating, terminal), or ""
WAIT_CLASS_OF_METRIC = tuple(next((c for c in N.WAIT_CLASS_NAMES if m.startswith(f"wait_{c}_")), "")
                             if any(d.id == m and d.kind == "waitclass" for d in METRICS) else ""
                             for m in ENGINE_METRICS)


def enabled(meta: dict) -> bool:
    """Whether the engine ran the root-cause analysis (an engine without it writes no block)."""
    block = meta.get("root_causes")
    return isinstance(block, dict) and bool(block.get("enabled", False))


def analysis_block(meta: dict) -> dict:
    """meta.json's "root_causes" block as summary.json shows it: a copy, "enabled" always present."""
    block = meta.get("root_causes")
    return {**(dict(block) if isinstance(block, dict) else {}), "enabled": enabled(meta)}


class Cause(NamedTuple):
    """One cause row, for building CauseColumns by hand (tests)."""

    pattern: str      # wait state caused: one of DELAY_PATTERNS
    cls: str          # its class: grid or local
    kind: str         # N.CAUSE_KINDS
    callpath: str     # where the delay was spent
    rank: int         # delaying rank
    waiting: str      # metahost of the waiting rank
    short_s: float
    long_s: float


@dataclass(frozen=True)
class CauseColumns:
    """Cause rows of every engine process, in canonical order (see sorted_causes)."""

    pattern: np.ndarray   # uint16 code into ENGINE_METRICS
    cls: np.ndarray       # uint8 engine class code
    kind: np.ndarray      # uint8 code into N.CAUSE_KINDS
    callpath: np.ndarray  # index into the merged call paths
    rank: np.ndarray      # int32 delaying rank
    waiting: np.ndarray   # int32 index into the engine's metahosts (meta.json "metahosts")
    short_s: np.ndarray   # float64
    long_s: np.ndarray    # float64

    FIELDS = ("pattern", "cls", "kind", "callpath", "rank", "waiting", "short_s", "long_s")

    def __len__(self) -> int:
        return len(self.short_s)

    def take(self, rows: np.ndarray) -> "CauseColumns":
        return CauseColumns(*(getattr(self, f)[rows] for f in self.FIELDS))

    @staticmethod
    def empty() -> "CauseColumns":
        return CauseColumns(np.zeros(0, np.uint16), np.zeros(0, np.uint8), np.zeros(0, np.uint8),
                            np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0, np.int32),
                            np.zeros(0), np.zeros(0))

    @staticmethod
    def from_rows(rows: Iterable[Cause], callpaths: Sequence[str], metahosts: Sequence[str]) -> "CauseColumns":
        rows = list(rows)
        code = {c: i for i, c in enumerate(CLASSES_BY_CODE)}
        index = {p: i for i, p in enumerate(callpaths)}
        return sorted_causes(CauseColumns(
            np.asarray([ENGINE_METRICS.index(r.pattern) for r in rows], dtype=np.uint16),
            np.asarray([code[r.cls] for r in rows], dtype=np.uint8),
            np.asarray([N.CAUSE_KINDS.index(r.kind) for r in rows], dtype=np.uint8),
            np.asarray([index[r.callpath] for r in rows], dtype=np.int32),
            np.asarray([r.rank for r in rows], dtype=np.int32),
            np.asarray([list(metahosts).index(r.waiting) for r in rows], dtype=np.int32),
            np.asarray([r.short_s for r in rows], dtype=np.float64),
            np.asarray([r.long_s for r in rows], dtype=np.float64)), callpaths)


def sorted_causes(causes: CauseColumns, callpaths: Sequence[str]) -> CauseColumns:
    """CAUSES by pattern name, class, kind, call path string, rank, waiting metahost and the
    values: the values decide between rows of two engine call paths with one region-name path,
    whose order in the files depends on -j (as engine_files.sorted_by_severity)."""
    order = np.lexsort((causes.long_s, causes.short_s, causes.waiting, causes.rank,
                        string_order(callpaths)[causes.callpath], causes.kind, causes.cls,
                        METRIC_ORDER[causes.pattern]))
    return causes.take(order)


def _check(values: np.ndarray, limit: int, what: str, where: Path) -> np.ndarray:
    if values.size and int(values.max()) >= limit:
        raise GridscopeError(where, f"engine output refers to an unknown {what}")
    return values


def read_causes(folder: Path, head) -> CauseColumns | None:
    """The cause rows of every process (engine_files.EngineHead HEAD), merged and sorted;
    None when the engine ran without root causes."""
    if not enabled(head.meta):
        return None
    ranks, metahosts = int(head.meta["ranks"]), len(head.meta["metahosts"])
    parts = []
    for p, remap in enumerate(head.remaps):
        path = folder / CAUSES_FILE.format(process=p)
        try:
            size = path.stat().st_size
        except OSError:
            raise GridscopeError(path, "engine output missing (root causes are on)") from None
        if size % CAUSE_DTYPE.itemsize:
            raise GridscopeError(path, f"truncated: {size} bytes is not a whole number of "
                                       f"{CAUSE_DTYPE.itemsize}-byte cause rows")
        rows = np.fromfile(path, dtype=CAUSE_DTYPE)
        if not np.isin(rows["pattern"], DELAY_PATTERN_CODES).all():
            raise GridscopeError(path, "engine output names a wait state without delay analysis")
        if not (np.isfinite(rows["short"]).all() and np.isfinite(rows["long"]).all()):
            raise GridscopeError(path, "engine output holds a cost that is not a finite number")
        parts.append(CauseColumns(
            rows["pattern"], _check(rows["cls"], len(GRID_LOCAL_CODES), "class", path),
            _check(rows["kind"], len(N.CAUSE_KINDS), "kind of cause", path),
            remap[_check(rows["cp"], len(remap), "call path", path)].astype(np.int32),
            _check(rows["rank"], ranks, "rank", path).astype(np.int32),
            _check(rows["wait_metahost"], metahosts, "metahost", path).astype(np.int32),
            rows["short"], rows["long"]))
    if not parts:
        return CauseColumns.empty()
    merged = CauseColumns(*(np.concatenate([getattr(part, f) for part in parts]) for f in CauseColumns.FIELDS))
    return sorted_causes(merged, head.callpaths)


WAN_SOURCES_FILE = "wansources.{process}.bin"
WAN_SOURCE_DTYPE = np.dtype([("cp", "<u4"), ("rank", "<u4"), ("source", "<u4"), ("pad", "<u4"), ("seconds", "<f8")])
assert WAN_SOURCE_DTYPE.itemsize == 24  # analyzer: struct WanSourceRow


@dataclass(frozen=True)
class WanSources:
    """WAN excess per receiving call path and rank by the metahost the messages came from
    (docs/root-causes.md, "WAN transfer"): how a WAN cause splits among the links into its site."""

    callpath: np.ndarray  # index into the merged call paths
    rank: np.ndarray      # receiving rank
    source: np.ndarray    # index into the engine's metahosts (meta.json "metahosts")
    seconds: np.ndarray


def read_wan_sources(folder: Path, head) -> WanSources | None:
    """Every process's WAN source rows (None: root causes were off, or an engine without them)."""
    if not enabled(head.meta):
        return None
    ranks, metahosts = int(head.meta["ranks"]), len(head.meta["metahosts"])
    parts = []
    for p, remap in enumerate(head.remaps):
        path = folder / WAN_SOURCES_FILE.format(process=p)
        if not path.exists():
            return None
        if path.stat().st_size % WAN_SOURCE_DTYPE.itemsize:
            raise GridscopeError(path, "truncated engine output (not whole WAN source rows)")
        rows = np.fromfile(path, dtype=WAN_SOURCE_DTYPE)
        parts.append((remap[_check(rows["cp"], len(remap), "call path", path)].astype(np.int32),
                      _check(rows["rank"], ranks, "rank", path).astype(np.int32),
                      _check(rows["source"], metahosts, "metahost", path).astype(np.int32), rows["seconds"]))
    return WanSources(*(np.concatenate([part[i] for part in parts]) if parts else np.zeros(0) for i in range(4)))


def _sums(keys: Sequence[np.ndarray], *values: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """(first row of each distinct key, the sums of each of VALUES per key), keys ascending;
    each key's rows are summed in row order."""
    first, sums = None, []
    for column in values:
        first, total = group_sums(keys, column)
        sums.append(total)
    return first, sums


def _largest_first(totals: np.ndarray) -> np.ndarray:
    """Positions of the positive TOTALS, largest first; ties keep key order."""
    positive = np.flatnonzero(totals > 0)
    return positive[np.argsort(-totals[positive], kind="stable")]


def root_cause_rows(causes: CauseColumns, callpaths: Sequence[str], rank_metahost: Sequence[str],
                    metahosts: Sequence[str]) -> list[dict]:
    """summary.json `root_causes`: the delay costs per cause call path, cause metahost, kind,
    pattern and class of the wait state caused, summed over the ranks of the cause metahost
    (and over the waiting metahosts), largest total first. `waiting_s` splits each row's
    total by the metahost of the waiting ranks (METAHOSTS: the engine's list)."""
    if len(causes) == 0:
        return []
    hosts, host_code = np.unique(np.asarray(rank_metahost, dtype=object), return_inverse=True)
    where = host_code[causes.rank]
    key = (string_order(callpaths)[causes.callpath], where, causes.kind, METRIC_ORDER[causes.pattern], causes.cls)
    first, (short, long) = _sums(key, causes.short_s, causes.long_s)
    total = short + long
    waiting_names = np.asarray(metahosts, dtype=object)[causes.waiting]
    names, waiting = np.unique(waiting_names, return_inverse=True)
    split_first, (split_short, split_long) = _sums((*key, waiting), causes.short_s, causes.long_s)
    split: dict[tuple, dict[str, float]] = {}
    for row, value in zip(split_first.tolist(), (split_short + split_long).tolist()):
        split.setdefault(tuple(int(k[row]) for k in key), {})[str(names[waiting[row]])] = value
    rows = []
    for i in _largest_first(total).tolist():
        row = int(first[i])
        rows.append({N.CALLPATH: callpaths[int(causes.callpath[row])], N.METAHOST: str(hosts[where[row]]),
                     N.KIND: N.CAUSE_KINDS[int(causes.kind[row])], N.PATTERN: ENGINE_METRICS[int(causes.pattern[row])],
                     N.CLASS: CLASSES_BY_CODE[int(causes.cls[row])], N.SHORT_TERM_S: float(short[i]),
                     N.LONG_TERM_S: float(long[i]), N.TOTAL_S: float(total[i]),
                     N.WAITING_S: split[tuple(int(k[row]) for k in key)]})
    return rows


def cause_pair_rows(causes: CauseColumns, rank_metahost: Sequence[str], metahosts: Sequence[str]) -> list[dict]:
    """summary.json `cause_pairs`: seconds of waiting on metahost `waiting` caused by delays on
    metahost `cause` (the same metahost for local causes), pairs in name order."""
    if len(causes) == 0:
        return []
    cause_names = np.asarray(rank_metahost, dtype=object)[causes.rank]
    waiting_names = np.asarray(metahosts, dtype=object)[causes.waiting]
    names, codes = np.unique(np.concatenate((cause_names, waiting_names)), return_inverse=True)
    cause, waiting = codes[:len(causes)], codes[len(causes):]
    first, (short, long) = _sums((cause, waiting), causes.short_s, causes.long_s)
    return [{N.CAUSE: str(names[cause[row]]), N.WAITING: str(names[waiting[row]]),
             N.SHORT_TERM_S: float(s), N.LONG_TERM_S: float(lg)}
            for row, s, lg in zip(first.tolist(), short.tolist(), long.tolist()) if s + lg > 0]


def wait_class_totals(sev: SeverityColumns) -> dict[str, dict[str, float]]:
    """summary.json `wait_classes`: direct, indirect, propagating and terminal waiting time,
    grid and local, from the wait-class metrics' severity rows."""
    out = {name: {cls: 0.0 for cls in N.CLASSES} for name in N.WAIT_CLASS_NAMES}
    of_metric = np.asarray(WAIT_CLASS_OF_METRIC, dtype=object)[sev.metric]
    rows = sev.take(of_metric != "")
    if len(rows) == 0:
        return out
    names = np.asarray(WAIT_CLASS_OF_METRIC, dtype=object)[rows.metric]
    codes = np.asarray([N.WAIT_CLASS_NAMES.index(n) for n in names], dtype=np.int8)
    first, sums = group_sums((codes, rows.cls), rows.value)
    for row, value in zip(first.tolist(), sums.tolist()):
        cls = CLASSES_BY_CODE[int(rows.cls[row])]
        if cls in N.CLASSES:
            out[N.WAIT_CLASS_NAMES[int(codes[row])]][cls] = float(value)
    return out


def summary_keys(out, rank_metahost: Sequence[str]) -> dict:
    """The root-cause keys of summary.json for engine_files.EngineOutput OUT (its `causes`
    None: root causes were off, and the keys say so with empty lists and zeros)."""
    causes = out.causes
    on = causes is not None
    causes = causes if on else CauseColumns.empty()
    return {
        N.ROOT_CAUSE_ANALYSIS: analysis_block(out.meta),
        N.ROOT_CAUSES: root_cause_rows(causes, out.callpaths, rank_metahost, out.meta.get("metahosts", [])),
        N.CAUSE_PAIRS: cause_pair_rows(causes, rank_metahost, out.meta.get("metahosts", [])),
        N.WAIT_CLASSES: wait_class_totals(out.severities),
    }
