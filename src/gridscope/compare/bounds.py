"""Physical lower bounds of a collective between metahosts (issue 5).

With WAN latency L (s), WAN bandwidth W (bytes/s) and n ranks, ``bytes`` being each rank's
send buffer (Bcast: the root's; Gather/Allgather: each contribution; Alltoall: each rank's
whole send buffer):

- Barrier: L
- Bcast, Reduce, Allreduce: L + bytes/W
- Gather, Allgather: L + (n/2)·bytes/W   (half the ranks on the other side)
- Alltoall: L + n·bytes/(4W)             (a quarter of all data crosses each direction)

They assume two equally populated metahosts; with more metahosts they stay lower bounds of
the busiest WAN link only roughly (documented in docs/collectives.md).
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
