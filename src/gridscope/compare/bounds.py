"""Physical lower bounds of a collective between metahosts (issue 5).

With WAN latency L (s), WAN bandwidth W (bytes/s) and n ranks, ``bytes`` being each rank's
send buffer (Bcast: the root's; Gather/Allgather: each contribution; Alltoall: each rank's
whole send buffer):

- Barrier: L
- Bcast, Reduce, Allreduce: L + bytes/W
- Gather, Allgather: L + (n/2)·bytes/W   (half the ranks on the other side)
- Alltoall: L + n·bytes/(4W)             (a quarter of all data crosses each direction)

They assume two equally populated metahosts. `multisite_bound_s` holds for any number of
metahosts and any WAN graph (docs/collectives.md); `gridscope compare` uses it.
"""

from __future__ import annotations

from dataclasses import dataclass

OPS = ("bcast", "reduce", "allreduce", "gather", "allgather", "alltoall", "barrier")


@dataclass(frozen=True)
class Wan:
    latency_s: float
    bandwidth_Bps: float


def wan_of(platform) -> Wan:  # noqa: ANN001 - gridscope.testbed.platform.Platform
    """The slowest WAN route of a platform (largest latency, smallest bandwidth)."""
    routes = platform.routes
    if not routes:
        return Wan(0.0, float("inf"))
    return Wan(max(r.latency for r in routes), min(r.bandwidth for r in routes))


def lower_bound_s(op: str, nbytes: int, ranks: int, wan: Wan) -> float:
    if op not in OPS:
        raise ValueError(f"unknown collective {op!r}")
    lat, bw = wan.latency_s, wan.bandwidth_Bps
    if op == "barrier":
        return lat
    if op in ("bcast", "reduce", "allreduce"):
        return lat + nbytes / bw
    if op in ("gather", "allgather"):
        return lat + (ranks / 2) * nbytes / bw
    return lat + ranks * nbytes / (4 * bw)


# ---------------------------------------------------------------- any number of metahosts

def _shortest_latencies(platform) -> dict[tuple[str, str], float]:  # noqa: ANN001
    """Latency of the fastest WAN path between every ordered pair of metahosts; a schedule
    may relay through a third metahost when that is quicker (Floyd-Warshall)."""
    names = [mh.name for mh in platform.metahosts]
    d = {(a, b): 0.0 if a == b else platform.route(a, b).latency for a in names for b in names}
    for k in names:
        for a in names:
            for b in names:
                d[(a, b)] = min(d[(a, b)], d[(a, k)] + d[(k, b)])
    return d


def _fill_time(volume: float, links: list[tuple[float, float]]) -> float:
    """Earliest T with sum(rate * max(0, T - start)) >= volume over LINKS (rate, start):
    each incoming link delivers at its rate from the moment data can first arrive on it."""
    links = sorted((start, rate) for rate, start in links if rate > 0)
    rate = done = 0.0
    t = links[0][0]
    for i, (start, r) in enumerate(links):
        done += rate * (start - t)
        if done >= volume:
            return start - (done - volume) / rate
        t, rate = start, rate + r
    return t + (volume - done) / rate


def _link_rate(platform, counts: list[int], src: int, dst: int) -> float:  # noqa: ANN001
    """What the WAN link SRC -> DST can carry: its bandwidth, or for a per-flow link what
    the sending nodes can push (at most one flow per pair of ranks)."""
    from gridscope.testbed.platform import PER_FLOW

    a, b = platform.metahosts[src], platform.metahosts[dst]
    route = platform.route(a.name, b.name)
    if route.sharing != PER_FLOW:
        return route.bandwidth
    nodes = -(-counts[src] // a.cores)
    return min(nodes * a.node_bandwidth, counts[src] * counts[dst] * route.bandwidth)


def _nodes_bandwidth(platform, counts: list[int], m: int) -> float:  # noqa: ANN001
    """What the links of metahost M's nodes carry together, per direction."""
    mh = platform.metahosts[m]
    return -(-counts[m] // mh.cores) * mh.node_bandwidth


def _in_links(platform, counts: list[int], dst: int,  # noqa: ANN001
              ready: dict[int, float]) -> list[tuple[float, float]]:
    """(rate, start) of every link i -> DST: it delivers from ready[i] + its latency on."""
    mhs = platform.metahosts
    return [(_link_rate(platform, counts, i, dst),
             ready[i] + platform.route(mhs[i].name, mhs[dst].name).latency)
            for i in ready if i != dst and counts[i] > 0]


def _receive_s(platform, counts: list[int], dst: int, volume: float,  # noqa: ANN001
               ready: dict[int, float]) -> float:
    """Earliest time metahost DST can have received VOLUME bytes from outside, when the data
    can be at metahost i from time ready[i] on: every incoming link i -> DST delivers at its
    rate from ready[i] + its latency, and the links of DST's nodes bound the sum."""
    links = _in_links(platform, counts, dst, ready)
    first = min(start for _, start in links)
    return max(_fill_time(volume, links),
               first + volume / _nodes_bandwidth(platform, counts, dst))


def _send_s(platform, counts: list[int], src: int, volume: float,  # noqa: ANN001
            onward: dict[int, float]) -> float:
    """Earliest time the VOLUME bytes that must leave metahost SRC can all have arrived where
    they are needed: a byte sent over SRC -> i arrives after that link's latency plus
    onward[i] (the fastest path on from i; 0 when i needs it itself)."""
    mhs = platform.metahosts
    links = [(_link_rate(platform, counts, src, i),
              platform.route(mhs[src].name, mhs[i].name).latency + onward[i])
             for i in onward if i != src and counts[i] > 0]
    first = min(start for _, start in links)
    return max(_fill_time(volume, links),
               first + volume / _nodes_bandwidth(platform, counts, src))


def _reduction_receive_s(platform, counts: list[int], dst: int, nbytes: float,  # noqa: ANN001
                         sources: int, combined: float) -> float:
    """Earliest time metahost DST can hold the reduction of the partials (nbytes each) of
    SOURCES other metahosts: an element arrives either combined, in one unit, no sooner than
    COMBINED (a relay must first have heard from another metahost), or raw, one unit per
    source. Every incoming link i delivers at its rate from its latency on, and DST's nodes'
    links bound the sum (as `_receive_s`)."""
    links = _in_links(platform, counts, dst, {i: 0.0 for i in range(len(counts))})
    nodes_bw = _nodes_bandwidth(platform, counts, dst)
    first = min(start for _, start in links)

    def delivered(t: float, not_before: float) -> float:
        by_links = sum(rate * max(0.0, t - max(start, not_before)) for rate, start in links)
        return min(by_links, nodes_bw * max(0.0, t - max(first, not_before)))

    def feasible(t: float) -> bool:
        whole = min(nbytes, delivered(t, combined))
        return whole + sources * (nbytes - whole) <= delivered(t, 0.0)

    lo, hi = first, max(start for _, start in links) + 1.0
    while not feasible(hi):
        lo, hi = hi, 2 * hi
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if feasible(mid) else (mid, hi)
    return hi


def _node_s(platform, dst: int, local: float, outside: float, first: float) -> float:  # noqa: ANN001
    """Earliest time one node of metahost DST can have received LOCAL bytes from its own
    metahost (from the start on) and OUTSIDE bytes from other metahosts (from FIRST on, the
    first WAN arrival): all of them enter through that node's own links."""
    bw = platform.metahosts[dst].node_bandwidth
    return max((local + outside) / bw, first + outside / bw)


def _two_hop_latencies(lat: dict, names: list[str], used: list[int]) -> dict[int, float]:
    """For every metahost j, the earliest a value combining the data of two other metahosts
    can reach it: one of them must first have heard from the other (a relay that reduces on
    the way). Infinite with fewer than three metahosts."""
    out = {}
    for j in used:
        hops = [lat[(names[s], names[i])] + lat[(names[i], names[j])]
                for i in used for s in used if len({s, i, j}) == 3]
        out[j] = min(hops, default=float("inf"))
    return out


def multisite_bound_s(op: str, nbytes: int, platform, counts: list[int],  # noqa: ANN001
                      root: int = 0) -> float:
    """Lower bound of a collective over the WAN graph of PLATFORM with counts[m] ranks on
    metahost m and the root on metahost ROOT (collbench's rank 0), for any schedule (trees
    that relay through a third metahost, data split over several paths). Every metahost
    that must hear from another one waits at least the fastest WAN path's latency, and the
    bytes it must receive from outside enter through its incoming links, each from the
    moment data can be at the link's far end (for a broadcast: once it has reached that
    metahost; otherwise once it can have come from the metahosts whose bytes they are, for
    every set of them). An element of a reduction arrives raw (one unit
    per other metahost) or, no sooner than two WAN hops, combined by a relay (one unit). A node must take in through its own links every block it does not hold
    (Gather's root, every node in Allgather). With two equally populated metahosts and one
    shared link each way it is `lower_bound_s`."""
    if op not in OPS:
        raise ValueError(f"unknown collective {op!r}")
    mhs = platform.metahosts
    names = [mh.name for mh in mhs]
    used = [m for m, c in enumerate(counts) if c > 0]
    if len(used) < 2:
        return 0.0
    lat = _shortest_latencies(platform)
    n = sum(counts)
    at_start = {m: 0.0 for m in used}
    combined = _two_hop_latencies(lat, names, used)

    def reach(dst: int, sources) -> float:
        return max(lat[(names[s], names[dst])] for s in sources if s != dst)

    def receive(dst: int, volume: float, ready=at_start) -> float:
        return _receive_s(platform, counts, dst, volume, ready) if volume else 0.0

    def receive_from(dst: int, volumes: dict[int, float]) -> float:
        """DST receiving volumes[s] bytes that start at metahost s: for every set of sources,
        their bytes enter through DST's links, each open from the moment one of them can be
        at its far end (a relay i hears from s after the fastest path s -> i)."""
        sources = [s for s, v in volumes.items() if v > 0 and s != dst]
        subsets = ([[s] for s in sources] + [sources] if len(sources) > 10 else
                   [[s for b, s in enumerate(sources) if mask >> b & 1]
                    for mask in range(1, 1 << len(sources))])
        return max((receive(dst, sum(volumes[s] for s in sub),
                            {i: min(lat[(names[s], names[i])] for s in sub) for i in used})
                    for sub in subsets), default=0.0)

    def send(src: int, volume: float, to_root: bool = False) -> float:
        onward = {m: lat[(names[m], names[root])] if to_root else 0.0 for m in used}
        return _send_s(platform, counts, src, volume, onward) if volume else 0.0

    def both(j: int, volumes_in: dict[int, float], volume_out: float) -> float:
        return max(reach(j, used), receive_from(j, volumes_in), send(j, volume_out))

    def reduced(j: int) -> float:
        return _reduction_receive_s(platform, counts, j, nbytes, len(used) - 1, combined[j])

    def node(j: int, local: float, outside: float) -> float:
        first = min(lat[(names[s], names[j])] for s in used if s != j)
        return _node_s(platform, j, local, outside, first)

    if op == "barrier":
        return max(reach(j, used) for j in used)
    if op == "bcast":
        from_root = {m: lat[(names[root], names[m])] for m in used}
        return max(max(reach(j, [root]), receive(j, nbytes, from_root))
                   for j in used if j != root)
    others = [j for j in used if j != root]
    if op == "reduce":  # every other metahost's partial result must leave it for the root
        return max(reach(root, used), reduced(root),
                   *(send(j, nbytes, to_root=True) for j in others))
    if op == "allreduce":
        return max(max(reach(j, used), reduced(j), send(j, nbytes)) for j in used)
    if op == "gather":  # ... and the root's node takes in every block it does not hold
        return max(reach(root, used), receive_from(root, {s: counts[s] * nbytes for s in used}),
                   node(root, (counts[root] - min(counts[root], mhs[root].cores)) * nbytes,
                        (n - counts[root]) * nbytes),
                   *(send(j, counts[j] * nbytes, to_root=True) for j in others))
    if op == "allgather":  # ... and every node takes in every block it does not hold
        return max(max(both(j, {s: counts[s] * nbytes for s in used}, counts[j] * nbytes),
                       node(j, (counts[j] - min(counts[j], mhs[j].cores)) * nbytes,
                            (n - counts[j]) * nbytes)) for j in used)
    # alltoall: metahost j receives one block of nbytes/n from every outside rank per member,
    # and sends as much out
    return max(both(j, {s: counts[j] * counts[s] * nbytes / n for s in used},
                    counts[j] * (n - counts[j]) * nbytes / n) for j in used)
