"""Which simulated host each rank runs on.

Ranks go metahost by metahost: with ``block`` placement ranks 0..n0-1 on the first
metahost, the next n1 on the second and so on; with ``round-robin`` rank r goes to the next
metahost (in platform order) that still has room in its share. Shares are even (the first
metahosts take the remainder) unless a layout such as ``16,8`` gives them; without a rank
count every core of the platform gets one rank. Inside a
metahost a rank's node is filled with ``cores`` ranks (more when the share exceeds
nodes x cores: simulated nodes may be oversubscribed) before the next node is used.
"""

from __future__ import annotations

import math

from gridscope.testbed.platform import Platform

BLOCK = "block"
ROUND_ROBIN = "round-robin"
PLACEMENTS = (BLOCK, ROUND_ROBIN)


class PlacementError(ValueError):
    """A rank count or layout that does not fit the platform."""


def parse_layout(text: str, metahost_count: int) -> list[int]:
    parts = [p.strip() for p in text.split(",")]
    try:
        counts = [int(p) for p in parts]
    except ValueError:
        raise PlacementError(f"layout {text!r} is not a comma-separated list of rank counts")
    if len(counts) != metahost_count:
        raise PlacementError(f"layout {text!r} gives {len(counts)} counts for "
                             f"{metahost_count} metahosts")
    if any(c < 0 for c in counts) or sum(counts) == 0:
        raise PlacementError(f"layout {text!r} needs non-negative counts and at least one rank")
    return counts


def shares(platform: Platform, np: int | None, layout: str | None) -> list[int]:
    """Ranks per metahost, in platform order."""
    count = len(platform.metahosts)
    if layout is not None:
        counts = parse_layout(layout, count)
        if np is not None and np != sum(counts):
            raise PlacementError(f"layout {layout!r} places {sum(counts)} ranks but -np is {np}")
        return counts
    if np is None:  # no count given: one rank per core of the platform
        return [mh.nodes * mh.cores for mh in platform.metahosts]
    if np < 1:
        raise PlacementError(f"-np must be at least 1, not {np}")
    base, extra = divmod(np, count)
    return [base + (1 if i < extra else 0) for i in range(count)]


def rank_metahosts(counts: list[int], placement: str) -> list[int]:
    """Metahost index of each rank."""
    if placement == BLOCK:
        return [i for i, c in enumerate(counts) for _ in range(c)]
    if placement != ROUND_ROBIN:
        raise PlacementError(f"placement {placement!r} is not one of {', '.join(PLACEMENTS)}")
    left = list(counts)
    order: list[int] = []
    while any(left):
        for i in range(len(left)):
            if left[i]:
                order.append(i)
                left[i] -= 1
    return order


def hosts_for_ranks(platform: Platform, np: int | None, layout: str | None,
                    placement: str = BLOCK) -> list[str]:
    """The host of each rank, rank order (one hostfile line per rank)."""
    counts = shares(platform, np, layout)
    which = rank_metahosts(counts, placement)
    per_node = [max(mh.cores, math.ceil(c / mh.nodes)) if c else 0
                for mh, c in zip(platform.metahosts, counts)]
    seen = [0] * len(counts)
    hosts = []
    for mh_index in which:
        mh = platform.metahosts[mh_index]
        hosts.append(mh.host(seen[mh_index] // per_node[mh_index]))
        seen[mh_index] += 1
    return hosts
