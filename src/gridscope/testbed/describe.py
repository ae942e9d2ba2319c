"""One-paragraph, human-readable summary of a platform (for `gridscope platform --list`)."""

from __future__ import annotations

from gridscope.testbed.platform import RTT_FAIR, Platform


def _bw(bytes_per_s: float) -> str:
    return f"{bytes_per_s * 8 / 1e6:.6g} Mb/s"


def _lat(seconds: float) -> str:
    return f"{seconds * 1e3:.6g} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.6g} µs"


def describe(platform: Platform) -> str:
    lines = [f"{platform.name}: {platform.description}".rstrip(": ")]
    if platform.packet:
        lines.append("  packet network (ns-3 TCP): " + (platform.settings.summary() or "ns-3 defaults"))
    elif platform.flow_fairness != RTT_FAIR:
        lines.append(f"  flows share links {platform.flow_fairness}ly, whatever their latency")
    for mh in platform.metahosts:
        lines.append(f"  {mh.name}: {mh.nodes} nodes x {mh.cores} cores, "
                     f"{_bw(mh.bandwidth)}, {_lat(mh.latency)}"
                     + (f", {mh.nics} NICs of {_bw(mh.nic_bandwidth)}" if mh.multirail else ""))
    for r in platform.routes:
        lines.append(f"  {r.src} -> {r.dst}: {_bw(r.bandwidth)}, {_lat(r.latency)} ({r.sharing})")
    return "\n".join(lines)
