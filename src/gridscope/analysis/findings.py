"""Findings: the culprits of a run's waiting, most costly first, each with advice that fits
its cause (docs/root-causes.md, "Findings").

Built from the delay costs (short + long term: the waiting a delay caused, directly and
through other waits). One culprit is one finding:

- a WAN direction (`wan_transfer`, `link` [from, to]): the WAN transfer time the receivers on
  `to` saw in messages from `from`, wherever it made others wait;
- otherwise the ranks whose time in a call path made others wait: the ranks that spend
  clearly more time in that call path than its median rank; when nobody does and only some
  ranks run it, those ranks; else the delayers. Call paths with the same culprit ranks are
  one finding. Such a set is a single rank,
  a master (one rank that exchanges at least half of all point-to-point messages and
  causes point-to-point waiting), a collective's late root (it causes Late Broadcast), a
  whole site (every rank of one metahost), or ranks.

A finding costing less than MIN_SHARE of the application's time (summed over ranks, MPI_Init
and MPI_Finalize left out) is not listed; a balanced run has none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from gridscope.analysis import critical_path
from gridscope.analysis import names as N
from gridscope.analysis.engine_files import EngineOutput
from gridscope.analysis.metric_tree import ENGINE_METRICS
from gridscope.analysis.run_shape import in_init_finalize
from gridscope.analysis.wan_links import split_wan_causes
from gridscope.units import seconds_text

MIN_SHARE = 0.02
# a rank is in the culprit set when its excess over the median rank is at least this part of
# the largest excess, and that excess is a noticeable part of the median time
EXCESS_OF_LARGEST = 0.5
NOTICEABLE_EXCESS = 0.05
P2P_PATTERNS = frozenset({"late_sender", "wrong_order", "late_receiver"})
COLLECTIVE_PATTERNS = frozenset({"wait_at_barrier", "wait_at_nxn", "late_broadcast", "early_reduce"})
P2P_CALL = re.compile(r"^MPI_(I?[SBR]?send|I?m?recv|Sendrecv(_replace)?)$", re.IGNORECASE)
COLLECTIVE_CALL = re.compile(r"^MPI_I?(Barrier|Bcast|Reduce|Allreduce|Gather|Gatherv|Scatter|Scatterv|Allgather|"
                             r"Allgatherv|Alltoall|Alltoallv|Alltoallw|Reduce_scatter|Reduce_scatter_block|Scan|"
                             r"Exscan)$", re.IGNORECASE)

# cause kinds and culprit roles as summary.json names them
COMPUTATION, COMMUNICATION, WAN_TRANSFER = "computation", "communication", "wan_transfer"
RANK, RANKS, SITE, MASTER, LATE_ROOT, LINK = "rank", "ranks", "site", "master", "collective_root", "link"
KIND_WORDS = {COMPUTATION: "computation", COMMUNICATION: "communication", WAN_TRANSFER: "WAN transfers to it"}


def _ratio(part: float, whole: float) -> float:
    return part / whole if whole > 0 else 0.0


def _larger_kind(known: str | None, kind: str) -> str:
    """A call path's kind when causes of two kinds meet in it (an MPI call's own time and its
    WAN transfer): the transfer names it."""
    return WAN_TRANSFER if WAN_TRANSFER in (known, kind) else (known or kind)


@dataclass
class _Culprit:
    """What the delay costs charge to one culprit, while they are gathered."""

    kind: str
    role: str = ""
    ranks: tuple[int, ...] = ()
    link: tuple[str, str] | None = None
    by_callpath: dict[int, float] = field(default_factory=dict)   # call path index -> cost
    kind_of: dict[int, str] = field(default_factory=dict)         # call path index -> its kind
    by_pattern: dict[str, float] = field(default_factory=dict)
    by_rank: dict[int, float] = field(default_factory=dict)
    path_by_callpath: dict[int, float] = field(default_factory=dict)  # critical-path imbalance
    path_ranks: dict[int, float] = field(default_factory=dict)    # that imbalance per rank

    @property
    def path_imbalance(self) -> float:
        """Seconds of the critical path above the ranks' average in the culprit's call paths."""
        return sum(self.path_by_callpath.values())

    def add_imbalance(self, callpath: int, per_rank: dict[int, float]) -> None:
        self.path_by_callpath[callpath] = self.path_by_callpath.get(callpath, 0.0) + sum(per_rank.values())
        for r, v in per_rank.items():
            self.path_ranks[r] = self.path_ranks.get(r, 0.0) + v

    def main_callpath(self, facts: "RunFacts") -> int:
        """The call path that weighs most: its share of the waiting or of the critical path."""
        def weight(cp: int) -> float:
            return _ratio(self.by_callpath.get(cp, 0.0), facts.application_s) + \
                _ratio(self.path_by_callpath.get(cp, 0.0), facts.path_length_s)
        return max(sorted(set(self.by_callpath) | set(self.path_by_callpath)), key=weight)

    @property
    def cost(self) -> float:
        return sum(self.by_callpath.values())

    def weight(self, facts: "RunFacts") -> float:
        """What ranks the culprit: the larger of its share of the waiting and its share of the
        critical path (what shortening it would shorten)."""
        return max(_ratio(self.cost, facts.application_s), _ratio(self.path_imbalance, facts.path_length_s))

    def add(self, callpath: int, kind: str, pattern: str, rank: int, seconds: float) -> None:
        self.by_callpath[callpath] = self.by_callpath.get(callpath, 0.0) + seconds
        self.kind_of[callpath] = _larger_kind(self.kind_of.get(callpath), kind)
        self.by_pattern[pattern] = self.by_pattern.get(pattern, 0.0) + seconds
        self.by_rank[rank] = self.by_rank.get(rank, 0.0) + seconds

    def absorb(self, other: "_Culprit") -> None:
        for table, more in ((self.by_callpath, other.by_callpath), (self.by_pattern, other.by_pattern),
                            (self.by_rank, other.by_rank)):
            for key, value in more.items():
                table[key] = table.get(key, 0.0) + value
        for key, value in other.kind_of.items():
            self.kind_of[key] = _larger_kind(self.kind_of.get(key), value)
        for key, value in other.path_by_callpath.items():
            self.path_by_callpath[key] = self.path_by_callpath.get(key, 0.0) + value
        for key, value in other.path_ranks.items():
            self.path_ranks[key] = self.path_ranks.get(key, 0.0) + value


@dataclass(frozen=True)
class RunFacts:
    """What the culprit rules need of a run, besides the costs."""

    callpaths: Sequence[str]
    rank_metahost: Sequence[str]
    spent: dict[int, np.ndarray]        # call path index -> time per rank without waits (NaN: not visited)
    p2p_calls: np.ndarray               # per rank: point-to-point calls made
    application_s: float                # time summed over ranks, MPI_Init/Finalize left out
    critical: dict[tuple[int, int], float]  # (call path index, rank) -> seconds on the critical path
    imbalance: dict[int, dict[int, float]]  # call path index -> rank -> critical-path imbalance
    path_length_s: float                # the critical path's length
    start_up: frozenset[int]            # call paths in MPI_Init*/MPI_Finalize: shown apart, no culprit


def run_facts(out: EngineOutput, rank_metahost: Sequence[str], application_s: float) -> RunFacts:
    ranks = len(rank_metahost)
    spent: dict[int, np.ndarray] = {}
    times = critical_path.time_without_waits(out)
    for cp, rank, value in zip(times.callpath.tolist(), times.rank.tolist(), times.value.tolist()):
        row = spent.get(cp)
        if row is None:  # (not setdefault: it would build a row of every rank for each value)
            row = spent[cp] = np.full(ranks, np.nan)
        row[rank] = value
    sev = out.severities
    is_p2p = np.fromiter((bool(P2P_CALL.match(p.rsplit("/", 1)[-1])) for p in out.callpaths), dtype=bool,
                         count=len(out.callpaths))
    visits = (sev.metric == ENGINE_METRICS.index(N.VISITS)) & is_p2p[sev.callpath]
    p2p_calls = np.zeros(ranks)
    np.add.at(p2p_calls, sev.rank[visits], sev.value[visits])
    metrics = critical_path.metrics(out)
    profile = metrics.profile
    critical = {(cp, r): v for cp, r, v in zip(profile.callpath.tolist(), profile.rank.tolist(), profile.value.tolist())}
    imbalance: dict[int, dict[int, float]] = {}
    rows = metrics.derived.get(critical_path.IMBALANCE)
    if rows is not None:
        for cp, r, v in zip(rows.callpath.tolist(), rows.rank.tolist(), rows.value.tolist()):
            imbalance.setdefault(cp, {})[r] = v
    length = float((out.meta.get("root_causes") or {}).get("critical_path_length_s") or 0.0)
    start_up = frozenset(i for i, p in enumerate(out.callpaths) if in_init_finalize(p))
    return RunFacts(out.callpaths, rank_metahost, spent, p2p_calls, application_s, critical, imbalance, length,
                    start_up)


def _excess_ranks(spent: np.ndarray | None) -> tuple[int, ...] | None:
    """The ranks clearly above the median rank's time in a call path (None: nobody is)."""
    if spent is None:
        return None
    visited = np.flatnonzero(~np.isnan(spent))
    if len(visited) == 1:
        return (int(visited[0]),)
    if len(visited) == 0:
        return None
    median = float(np.median(spent[visited]))
    excess = spent[visited] - median
    largest = float(excess.max())
    if largest <= 0 or largest <= NOTICEABLE_EXCESS * median:
        return None
    return tuple(int(r) for r in visited[excess >= EXCESS_OF_LARGEST * largest])


def _culprit_ranks(spent: np.ndarray | None, costs: dict[int, float]) -> tuple[int, ...]:
    """Who is late in a call path: the ranks clearly above its median rank; else, when only
    some ranks run it at all (one site's part of a coupled code, a master's service), all of
    those; else the ranks that carry most of its cost. The costliest rank must be among them
    (a barrier charges a late group's delay to one member)."""
    top = max(costs, key=costs.get)
    excess = _excess_ranks(spent)
    if excess and top in excess:
        return excess
    if spent is not None:
        runs = tuple(int(r) for r in np.flatnonzero(~np.isnan(spent)))
        if top in runs and len(runs) < len(spent):
            return runs
    return _largest(costs)


def _largest(costs: dict[int, float]) -> tuple[int, ...]:
    top = max(costs.values())
    return tuple(sorted(r for r, v in costs.items() if v >= EXCESS_OF_LARGEST * top))


def _hubs(facts: RunFacts) -> np.ndarray:
    """Ranks that make at least half as many point-to-point calls as all other ranks together,
    and at least two per other rank (a request and a reply each): a master. Its WAN transfers
    are the master's, not a link's (one culprit, one finding)."""
    calls = facts.p2p_calls
    others = calls.sum() - calls
    return (len(calls) >= 3) & (others > 0) & (calls >= 0.5 * others) & (calls >= 2 * (len(calls) - 1))


def _gather(causes, facts: RunFacts, wan_sources, metahosts: Sequence[str]) -> list[_Culprit]:
    total = causes.short_s + causes.long_s
    culprits: list[_Culprit] = []
    links: dict[tuple[str, str], _Culprit] = {}
    hub = _hubs(facts)
    for row, source, share in split_wan_causes(causes, wan_sources, facts.rank_metahost, metahosts):
        rank = int(causes.rank[row])
        if hub[rank]:
            continue  # gathered with the rank's other causes below
        to = facts.rank_metahost[rank]
        if source is None:  # an engine without WAN sources: the other site, when there is one
            others = sorted(set(facts.rank_metahost) - {to})
            source = others[0] if len(others) == 1 else "?"
        link = links.setdefault((source, to), _Culprit(WAN_TRANSFER, LINK, link=(source, to)))
        link.add(int(causes.callpath[row]), WAN_TRANSFER, ENGINE_METRICS[int(causes.pattern[row])], rank,
                 share * float(total[row]))
    culprits.extend(links.values())
    by_callpath: dict[tuple[int, str], _Culprit] = {}
    wan = N.CAUSE_KINDS.index(N.WAN)
    for row in np.flatnonzero((causes.kind != wan) | hub[causes.rank]).tolist():
        cp = int(causes.callpath[row])
        if cp in facts.start_up:
            continue
        kind = {N.COMPUTATION: COMPUTATION, N.COMMUNICATION: COMMUNICATION, N.WAN: WAN_TRANSFER}[
            N.CAUSE_KINDS[int(causes.kind[row])]]
        c = by_callpath.setdefault((cp, kind), _Culprit(kind))
        c.add(cp, kind, ENGINE_METRICS[int(causes.pattern[row])], int(causes.rank[row]), float(total[row]))
    for cp, per_rank in facts.imbalance.items():  # on the critical path above the average
        if cp in facts.start_up or sum(per_rank.values()) <= 0:
            continue
        # the culprit whose delay costs the call path holds most of (a WAN direction, ranks)
        holders = [x for x in links.values() if cp in x.by_callpath] + \
                  [x for (k, _), x in by_callpath.items() if k == cp]
        if holders:
            max(holders, key=lambda x: x.by_callpath[cp]).add_imbalance(cp, per_rank)
            continue
        leaf = facts.callpaths[cp].rsplit("/", 1)[-1]
        kind = COMMUNICATION if P2P_CALL.match(leaf) or COLLECTIVE_CALL.match(leaf) else COMPUTATION
        c = by_callpath.setdefault((cp, kind), _Culprit(kind))
        c.kind_of[cp] = kind
        c.add_imbalance(cp, per_rank)
    merged: dict[tuple[int, ...], _Culprit] = {}
    for (cp, _), c in by_callpath.items():
        if c.cost <= 0 and c.path_imbalance <= 0:
            continue
        c.ranks = _culprit_ranks(facts.spent.get(cp), c.by_rank if c.cost > 0 else c.path_ranks)
        if c.ranks in merged:  # the same ranks, another call path: one culprit
            merged[c.ranks].absorb(c)
        else:
            merged[c.ranks] = c
    culprits.extend(merged.values())
    return culprits


def _role(c: _Culprit, facts: RunFacts) -> str:
    if c.role:
        return c.role
    cost = c.cost
    p2p = sum(v for p, v in c.by_pattern.items() if p in P2P_PATTERNS)
    if len(c.ranks) == 1:
        r = c.ranks[0]
        if cost > 0 and p2p >= 0.5 * cost and _hubs(facts)[r]:
            return MASTER
        if cost > 0 and c.by_pattern.get("late_broadcast", 0.0) >= 0.5 * cost:
            return LATE_ROOT
        return RANK
    hosts = {facts.rank_metahost[r] for r in c.ranks}
    if len(hosts) == 1 and len(set(facts.rank_metahost)) > 1:
        host = next(iter(hosts))
        if sorted(c.ranks) == [r for r, h in enumerate(facts.rank_metahost) if h == host]:
            return SITE
    return RANKS


def _metahosts(c: _Culprit, facts: RunFacts) -> list[str]:
    """The culprit's metahosts, the one its ranks cost most on first (a link: its target)."""
    if c.link is not None:
        return [c.link[1]]
    per: dict[str, float] = {}
    for r in c.ranks:
        host = facts.rank_metahost[r]
        per[host] = per.get(host, 0.0) + c.by_rank.get(r, 0.0)
    return sorted(per, key=lambda h: (-per[h], h))


def _own_and_peers(callpath: int, ranks: tuple[int, ...], facts: RunFacts) -> tuple[float, float | None]:
    """The culprit ranks' mean time in the call path, and the other ranks' (None: nobody else
    runs it)."""
    spent = facts.spent.get(callpath)
    if spent is None or not ranks:
        return 0.0, None
    mine = np.asarray(ranks, dtype=np.intp)
    rest = np.setdiff1d(np.flatnonzero(~np.isnan(spent)), mine)
    own = float(np.nanmean(spent[mine])) if not np.isnan(spent[mine]).all() else 0.0
    return own, (float(np.mean(spent[rest])) if len(rest) else None)


def _excess_text(callpath: int, ranks: tuple[int, ...], facts: RunFacts) -> tuple[str, float | None]:
    """How long the culprit ranks spend in the call path against the other ranks' average
    (the text, and the excess per culprit rank in seconds when other ranks run it too)."""
    name = facts.callpaths[callpath]
    if facts.spent.get(callpath) is None or not ranks:
        return f"time in {name}", None
    own, peers = _own_and_peers(callpath, ranks, facts)
    if peers is None:
        return f"{seconds_text(own)} in {name}, which no other rank runs", None
    return f"{seconds_text(own)} in {name} against {seconds_text(peers)} on the other ranks' average", own - peers


def _what_if(c: _Culprit, cp: int, facts: RunFacts) -> str | None:
    """`gridscope predict --speedup` that gives a computation culprit its peers' average time
    in its call path (REGION@RANKS=FACTOR), or None (gains.py)."""
    if c.link is not None or c.kind_of.get(cp) != COMPUTATION:
        return None
    own, peers = _own_and_peers(cp, c.ranks, facts)
    if peers is None or own <= 0 or peers >= own:
        return None
    region = facts.callpaths[cp].rsplit("/", 1)[-1]
    return f"{region}@{','.join(rank_ranges(c.ranks))}={peers / own!r}"


def rank_ranges(ranks: Sequence[int]) -> list[str]:
    """Sorted ranks as ranges: [4, 5, 6, 7, 9] -> ["4-7", "9"]."""
    ranks = sorted(ranks)
    runs, start = [], ranks[0] if ranks else None
    for a, b in zip(ranks, list(ranks[1:]) + [None]):
        if b != a + 1:
            runs.append(f"{start}" if start == a else f"{start}-{a}")
            start = b
    return runs


def ranks_text(ranks: Sequence[int]) -> str:
    """"rank 5", "ranks 4-7, 9"."""
    return f"rank {ranks[0]}" if len(ranks) == 1 else "ranks " + ", ".join(rank_ranges(ranks))


def _advice(c: _Culprit, role: str, callpath: str, metahost: str, facts: RunFacts, cp: int) -> str:
    leaf = callpath.rsplit("/", 1)[-1]
    if role == LINK:
        source, target = c.link
        collective = any(COLLECTIVE_CALL.match(facts.callpaths[k].rsplit("/", 1)[-1]) for k in c.by_callpath)
        text = (f"Transfers from {source} to {target} hold up {target}'s ranks in {leaf}: send fewer, larger "
                f"messages across this link, or post them earlier and overlap the transfer with computation "
                f"(non-blocking calls).")
        if collective:
            text += " The waiting is in collectives: try the topology-aware collectives (GRIDSCOPE_COLL=topo)."
        return text
    detail, _ = _excess_text(cp, c.ranks, facts)
    who = ranks_text(c.ranks)
    if role == MASTER:
        where = ", ".join(f"{facts.callpaths[k].rsplit('/', 1)[-1]} ({KIND_WORDS[c.kind_of[k]]})"
                          for k in sorted(c.by_callpath, key=lambda k: -c.by_callpath[k])[:3])
        return (f"{who.capitalize()} on {metahost} is a master that every worker waits for: it handles "
                f"{int(facts.p2p_calls[c.ranks[0]]):,} point-to-point calls, and the workers wait while it is "
                f"busy in {where}. Use several masters (one per site, hierarchical), hand out larger tasks, "
                f"or let more ranks serve requests.")
    if role == LATE_ROOT:
        return (f"{who.capitalize()}, the root of the broadcast, arrives late: before the call it spends "
                f"{detail} while the others wait. Move that work after the broadcast, or share it among the "
                f"ranks.")
    if c.kind_of.get(cp) == COMMUNICATION:
        if COLLECTIVE_CALL.match(leaf):
            return (f"{who.capitalize()} on {metahost} reach{'es' if len(c.ranks) == 1 else ''} the others late "
                    f"because of the time {'it spends' if len(c.ranks) == 1 else 'they spend'} in {leaf}: "
                    f"look at what precedes it; across sites, try the topology-aware collectives.")
        return (f"{who.capitalize()} on {metahost} keep{'s' if len(c.ranks) == 1 else ''} others waiting while "
                f"{'it communicates' if len(c.ranks) == 1 else 'they communicate'} in {leaf}: post the messages "
                f"earlier (non-blocking calls) and overlap them with computation, or send fewer, larger ones.")
    if role == SITE:
        return (f"The ranks of {metahost} spend {detail}: give {metahost} a smaller share of the work "
                f"(repartition by site speed), or move work to the other sites.")
    one = len(c.ranks) == 1
    return (f"{who.capitalize()} on {metahost} spend{'s' if one else ''} {detail}: balance the work or "
            f"repartition the data so that {who} get{'s' if one else ''} less.")


def _finding(c: _Culprit, facts: RunFacts) -> dict:
    role = _role(c, facts)
    cp = c.main_callpath(facts)
    callpath = facts.callpaths[cp]
    hosts = _metahosts(c, facts)
    metahost = hosts[0]
    ranks = sorted(c.ranks) if c.link is None else sorted(r for r, v in c.by_rank.items() if v > 0)
    cost = c.cost
    _, excess = _excess_text(cp, tuple(c.ranks), facts)
    critical = sum(v for (k, r), v in facts.critical.items() if k in c.by_callpath and r in set(ranks))
    patterns = sorted(c.by_pattern, key=lambda p: -c.by_pattern[p])
    return {
        "cause": {"kind": c.kind_of.get(cp, c.kind), "role": role, "callpath": callpath, "metahost": metahost,
                  "ranks": ranks, "link": list(c.link) if c.link else None},
        "cost_s": cost,
        "share": cost / facts.application_s if facts.application_s > 0 else None,
        "path_imbalance_s": c.path_imbalance,
        "path_share": c.path_imbalance / facts.path_length_s if facts.path_length_s > 0 else None,
        "patterns": [p for p in patterns if c.by_pattern[p] > 0],
        "metahosts": hosts,
        "advice": _advice(c, role, callpath, ", ".join(hosts), facts, cp),
        "gain_s": None,
        "what_if": _what_if(c, cp, facts),
        "excess_s": excess,
        "critical_path_s": critical,
        "callpaths": [{"callpath": facts.callpaths[k], "kind": c.kind_of.get(k, c.kind),
                       "cost_s": c.by_callpath.get(k, 0.0), "path_imbalance_s": c.path_by_callpath.get(k, 0.0)}
                      for k in sorted(set(c.by_callpath) | set(c.path_by_callpath),
                                      key=lambda k: (-c.by_callpath.get(k, 0.0), -c.path_by_callpath.get(k, 0.0), k))],
    }


def build_findings(causes, wan_sources, facts: RunFacts, metahosts: Sequence[str]) -> list[dict]:
    """summary.json `findings`: the culprits costing MIN_SHARE of the time or more, largest first."""
    if causes is None or len(causes) == 0 or facts.application_s <= 0:
        return []
    culprits = [c for c in _gather(causes, facts, wan_sources, metahosts) if c.weight(facts) >= MIN_SHARE]
    culprits.sort(key=lambda c: -c.weight(facts))
    return [_finding(c, facts) for c in culprits]


def findings_keys(out: EngineOutput, rank_metahost: Sequence[str], application_s: float) -> dict:
    """summary.json's `findings` (None when root causes were off: nothing to build them from)."""
    if out.causes is None:
        return {"findings": None}
    facts = run_facts(out, rank_metahost, application_s)
    return {"findings": build_findings(out.causes, out.wan_sources, facts, out.meta.get("metahosts", []))}
