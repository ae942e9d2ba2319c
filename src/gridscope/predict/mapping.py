"""Which simulated host each rank of the trace replays on.

Default: each rank onto the platform site named like its metahost in the trace, on the
node of the same name when the site has it (a run predicted on its own platform keeps its
hosts), else filling the site's nodes `cores` ranks at a time. `block` / `round-robin`
spread the ranks over the platform as `gridscope record -np N --placement` does; MAP is a
metahost map file (docs/metahosts.md) naming each rank's site.
"""

from __future__ import annotations

import math
from pathlib import Path

from gridscope.errors import GridscopeError
from gridscope.testbed import placement as placement_mod
from gridscope.testbed.platform import Platform

BY_METAHOST = "metahost"


def _by_site(plat: Platform, sites: list[str], nodes: list[str], where: str) -> list[str]:
    known = {mh.name: mh for mh in plat.metahosts}
    missing = sorted({s for s in sites if s not in known})
    if missing:
        raise GridscopeError(plat.source, f"has no site for metahost{'s' if len(missing) > 1 else ''} "
                             f"{', '.join(repr(m) for m in missing)} of {where} "
                             f"(sites: {', '.join(known)}); give --placement")
    hosts: list[str] = []
    count = {name: sites.count(name) for name in known}
    for name, n in count.items():
        mh = known[name]
        if n > mh.nodes * mh.cores:
            raise GridscopeError(plat.source, f"site {name} has {mh.nodes * mh.cores} cores "
                                 f"({mh.nodes} nodes x {mh.cores}) for {n} ranks of {where}")
    own = {name: {mh.host(i) for i in range(mh.nodes)} for name, mh in known.items()}
    keep = all(node in own[site] for site, node in zip(sites, nodes))
    seen = {name: 0 for name in known}
    for site, node in zip(sites, nodes):
        mh = known[site]
        if keep:
            hosts.append(node)
        else:
            per_node = max(mh.cores, math.ceil(count[site] / mh.nodes))
            hosts.append(mh.host(seen[site] // per_node))
        seen[site] += 1
    return hosts


def hosts_for(plat: Platform, metahosts: list[str], nodes: list[str], placement: str,
              where: str) -> list[str]:
    ranks = len(metahosts)
    if placement == BY_METAHOST:
        return _by_site(plat, metahosts, nodes, where)
    if placement in placement_mod.PLACEMENTS:
        cores = sum(mh.nodes * mh.cores for mh in plat.metahosts)
        if ranks > cores:
            raise GridscopeError(plat.source, f"has {cores} cores for the {ranks} ranks of {where}")
        try:
            return placement_mod.hosts_for_ranks(plat, ranks, None, placement)
        except placement_mod.PlacementError as err:
            raise GridscopeError(plat.source, str(err)) from None
    path = Path(placement)
    if not path.is_file():
        raise GridscopeError(placement, "not a placement (metahost, block, round-robin) "
                             "nor a metahost map file")
    from gridscope.metahosts import load_map

    sites = load_map(path).resolve_all(nodes)
    return _by_site(plat, sites, nodes, where)


def recorded_speeds(recorded: Platform | None, metahosts: list[str]) -> list[float]:
    """flop/s of each rank's recorded host (0 where unknown: computation is not rescaled)."""
    if recorded is None:
        return [0.0] * len(metahosts)
    known = {mh.name: mh.speed for mh in recorded.metahosts}
    return [known.get(m, 0.0) for m in metahosts]
