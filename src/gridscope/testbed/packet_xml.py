"""Platform → SimGrid XML for the packet network (``network = "packet"``, ns-3).

SimGrid's ns-3 binding builds the ns-3 topology from the platform's routes: every route of
exactly one link becomes a point-to-point link (full duplex, one queue per direction)
between its two ends, longer routes are ignored, and ns-3's global IP routing finds the
paths. A ``<cluster>`` would also get a shared CSMA bus between all its nodes (a hub, not
a switch), so metahosts are written out by hand instead:

- one zone per metahost, named after it (the collector names a rank's metahost after the
  zone around its host), holding hosts ``<metahost>-<i>``, a router ``<metahost>-router``
  (the site's switch) and one link per host to it with half the node-to-node latency;
- one link per pair of metahosts between their routers, whose delay is the end-to-end WAN
  latency minus the two node halves, as in `simgrid_xml`.

Run it with ``--cfg=network/model:ns-3`` and the settings in ``NS_ATTRIBUTE_DEFAULT``
(`packet_settings.py`); `gridscope record` does both.
"""

from __future__ import annotations

from gridscope.testbed.platform import Metahost, Platform
from gridscope.testbed.units import format_bandwidth, format_duration, format_speed

NETWORK_MODEL = "ns-3"


def node_link_id(host: str) -> str:
    return f"{host}-link"


def wan_link_id(a: str, b: str) -> str:
    return f"wan-{a}-{b}"


def _zone(mh: Metahost, router: str) -> list[str]:
    hosts = [mh.host(i) for i in range(mh.nodes)]
    lines = [f'    <zone id="{mh.name}" routing="Full">']
    lines += [f'      <host id="{h}" speed="{format_speed(mh.speed)}"/>' for h in hosts]
    lines.append(f'      <router id="{router}"/>')
    lines += [f'      <link id="{node_link_id(h)}" bandwidth="{format_bandwidth(mh.bandwidth)}" '
              f'latency="{format_duration(mh.latency / 2)}"/>' for h in hosts]
    lines += [f'      <route src="{h}" dst="{router}"><link_ctn id="{node_link_id(h)}"/></route>'
              for h in hosts]
    lines.append("    </zone>")
    return lines


def zones_and_wan(platform: Platform, router_id) -> list[str]:
    """The lines inside the root zone: one zone per metahost, one WAN link per pair."""
    lines: list[str] = []
    for mh in platform.metahosts:
        lines += _zone(mh, router_id(mh.name))
    names = [mh.name for mh in platform.metahosts]
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    for a, b in pairs:  # the parser made both directions equal
        route = platform.route(a, b)
        half_ends = (platform.metahost(a).latency + platform.metahost(b).latency) / 2
        lines.append(f'    <link id="{wan_link_id(a, b)}" '
                     f'bandwidth="{format_bandwidth(route.bandwidth)}" '
                     f'latency="{format_duration(route.latency - half_ends)}"/>')
    for a, b in pairs:
        lines.append(f'    <zoneRoute src="{a}" dst="{b}" gw_src="{router_id(a)}" '
                     f'gw_dst="{router_id(b)}"><link_ctn id="{wan_link_id(a, b)}"/></zoneRoute>')
    return lines
