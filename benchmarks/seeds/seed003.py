#!/usr/bin/env python3
"""Seed 003 (Jeannot, Steffenel): LG all-to-all against vanilla (SimGrid's `ompi` selection)
on two clusters, n1 = n2 = 30 (lg-30-30) and n1 = 20, n2 = 40 (lg-20-40), one rank per node,
over block sizes;
then the same at 64 KiB blocks on variants of lg-30-30 that change one platform property,
to show which one decides LG's gain for large blocks:

- `fast-nodes`: node links 10 Gb/s instead of 894 Mb/s (LG's extra local phase is cheap);
- `wan-per-flow`: the 10 Gb/s backbone is a per-flow limit, not shared (WAN not a bottleneck);
- `wan-1g`: a 1 Gb/s shared backbone (the WAN dominates everything).

With --packet, also the packet network (ns-3 TCP, docs/testbed.md): lg-30-30-packet and
lg-20-40-packet at a few block sizes (1 B .. 512 KiB; one run per size, ns-3 is slow), then
64 KiB on variants of lg-30-30-packet that each change one setting: the router queues
(FQ-CoDel's limit, 10240 packets by default), the minimum retransmission timeout, and the
TCP settings left to ns-3 and SimGrid. --jobs runs that many simulations at once; a run
the simulator does not finish is shown as failed (OUT/seed003/.../failed says where).

Writes OUT/seed003/{results.json,seed003.png,table.md}. --quick: lg-30-30, 1 B .. 4 KiB.
"""

from __future__ import annotations

import json
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from common import REPO, collbench, publish, pyplot, run_collbench, seed_arguments, size

from gridscope.testbed.platform import load_platform

PRESETS = ("lg-30-30", "lg-20-40")
PRESET_DIR = REPO / "src" / "gridscope" / "testbed" / "presets"
VARIANTS = {  # name: (text replaced in lg-30-30.toml, replacement)
    "fast-nodes": ('bandwidth = "894.39Mbps"', 'bandwidth = "10Gbps"'),
    "wan-per-flow": ('sharing = "shared"', 'sharing = "per-flow"'),
    "wan-1g": ('bandwidth = "10Gbps"', 'bandwidth = "1Gbps"'),
    "equal-fairness": ("[platform]\n", '[platform]\nflow_fairness = "equal"\n'),
}
BLOCK = 1 << 16
ALGOS = ("vanilla", "lg")
PACKET_PRESETS = ("lg-30-30-packet", "lg-20-40-packet")
PACKET_BLOCKS = (1, 256, 1 << 12, 1 << 16, 1 << 19)
FLOW_BASE = "lg-30-30"  # the variants' platform
PACKET_BASE = "lg-30-30-packet"
PACKET_VARIANTS = {  # name: (text replaced in lg-30-30-packet.toml, replacement); the
    # [packet] table comes last, so a line added at the end of the file lands in it
    "queue-1000": ('window = "128KiB"\n', 'window = "128KiB"\nqueue = 1000\n'),
    "queue-30000": ('window = "128KiB"\n', 'window = "128KiB"\nqueue = 30000\n'),
    "queue-100000": ('window = "128KiB"\n', 'window = "128KiB"\nqueue = 100000\n'),
    "min-rto-1s": ('min_rto = "200ms"', 'min_rto = "1s"'),
}
# ns-3's and SimGrid's own TCP settings: the [packet] table removed
NS3_DEFAULTS = "ns3-defaults"


def layout(platform: str) -> str:
    """One rank per node, n1 on the first cluster and n2 on the second (the paper's n1, n2;
    even shares would put 30 ranks on lg-20-40's 20 Nancy nodes)."""
    return ",".join(str(mh.nodes) for mh in load_platform(platform).metahosts)


def measure(out: Path, quick: bool, reuse: bool) -> dict:
    folder = out / "seed003"
    exe = collbench(folder)
    hi = 1 << 12 if quick else 1 << 19
    res: dict = {"presets": {}, "variants": {}}
    for preset in PRESETS[:1] if quick else PRESETS:
        res["presets"][preset] = {
            algo: {str(b): t for b, t in sorted(run_collbench(
                exe, preset, 60, folder / preset / algo, "alltoall", 1, hi,
                {"GRIDSCOPE_COLL_ALLTOALL": algo}, reuse, layout(preset)).items())}
            for algo in ("vanilla", "lg")}
    if not quick:
        base = (PRESET_DIR / f"{FLOW_BASE}.toml").read_text()
        for name, (old, new) in VARIANTS.items():
            toml = folder / f"{FLOW_BASE}-{name}.toml"
            toml.write_text(base.replace(old, new))
            res["variants"][name] = {
                algo: run_collbench(exe, str(toml), 60, folder / name / algo, "alltoall", BLOCK,
                                    BLOCK, {"GRIDSCOPE_COLL_ALLTOALL": algo}, reuse,
                                    layout(str(toml)))[BLOCK]
                for algo in ("vanilla", "lg")}
    (folder / "results.json").write_text(json.dumps(res, indent=1))
    return res


def measure_packet(folder: Path, exe: Path, reuse: bool, jobs: int) -> dict:
    """The packet presets per block size, and lg-30-30-packet's variants at 64 KiB."""
    base = (PRESET_DIR / f"{PACKET_BASE}.toml").read_text()
    variants = {name: base.replace(old, new) for name, (old, new) in PACKET_VARIANTS.items()}
    variants[NS3_DEFAULTS] = base[: base.index("[packet]")]
    platforms = {p: p for p in PACKET_PRESETS}
    for name, text in variants.items():
        toml = folder / f"{PACKET_BASE}-{name}.toml"
        toml.write_text(text)
        platforms[name] = str(toml)
    runs = [(p, b, a) for p in PACKET_PRESETS for b in PACKET_BLOCKS for a in ALGOS]
    runs += [(name, BLOCK, a) for name in variants for a in ALGOS]

    def one(run: tuple[str, int, str]) -> float | None:
        """The time, or None when the simulator failed (ns-3 3.37 can crash, see docs)."""
        name, block, algo = run
        where = folder / name / f"{algo}-{block}"
        failed = where / "failed"
        if reuse and failed.exists():
            return None
        try:
            return run_collbench(exe, platforms[name], 60, where, "alltoall", block, block,
                                 {"GRIDSCOPE_COLL_ALLTOALL": algo}, reuse,
                                 layout(platforms[name]))[block]
        except subprocess.CalledProcessError:
            failed.write_text(f"smpirun failed: {where / 'trace' / 'smpirun.log'}\n")
            return None

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        times = dict(zip(runs, pool.map(one, runs)))
    return {"presets": {p: {a: {str(b): times[(p, b, a)] for b in PACKET_BLOCKS} for a in ALGOS}
                        for p in PACKET_PRESETS},
            "variants": {name: {a: times[(name, BLOCK, a)] for a in ALGOS} for name in variants}}


def plot(res: dict, path: Path) -> None:
    plt = pyplot()
    timings = {**res["presets"], **res.get("packet", {}).get("presets", {})}
    presets = list(timings)
    columns = 3
    rows = -(-(len(presets) + 1) // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 3.6 * rows), squeeze=False)
    axes = [ax for row in axes for ax in row]
    for ax in axes[len(presets) + 1:]:
        ax.axis("off")
    ax_ratio = axes[len(presets)]
    for j, preset in enumerate(presets):
        t = timings[preset]
        ax = axes[j]
        for algo, style, label in (("vanilla", "o-", "vanilla (ompi)"), ("lg", "s-", "LG")):
            done = [int(b) for b in t[algo] if t[algo][b]]  # failed runs are left out
            ax.plot(done, [t[algo][str(b)] for b in done], style, label=label, markersize=4)
        sizes = [int(b) for b in t["vanilla"] if t["vanilla"][b] and t["lg"][b]]
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        network = "packet (ns-3 TCP)" if preset in PACKET_PRESETS else "flow (CM02)"
        ax.set_title(f"{preset}, 60 ranks, {network}", fontsize=9)
        ax.set_xlabel("block size (bytes)", fontsize=8)
        ax.set_ylabel("alltoall time (s)", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=7)
        ax_ratio.plot(sizes, [t["vanilla"][str(b)] / t["lg"][str(b)] for b in sizes],
                      "s--" if preset in PACKET_PRESETS else "o-", label=preset, markersize=4)
    ax_ratio.axhspan(1 / 0.6, 1 / 0.4, color="grey", alpha=0.2,
                     label="paper, large blocks (40-60 % less)")
    ax_ratio.axhline(1.0, color="black", linewidth=0.8)
    ax_ratio.set_xscale("log", base=2)
    ax_ratio.set_yscale("log")
    ax_ratio.set_title("speed-up vanilla / LG", fontsize=9)
    ax_ratio.set_xlabel("block size (bytes)", fontsize=8)
    ax_ratio.tick_params(labelsize=7)
    ax_ratio.legend(fontsize=7)
    fig.suptitle("seed 003: LG all-to-all on two clusters (SimGrid SMPI; packet: ns-3)",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


def table(res: dict) -> str:
    lines = ["| platform | block | vanilla ms | LG ms | vanilla / LG | LG time saved |",
             "|---|---:|---:|---:|---:|---:|"]
    packet = res.get("packet", {})
    for network, base in ((res, FLOW_BASE), (packet, PACKET_BASE)):
        for preset, t in network.get("presets", {}).items():
            for b in t["vanilla"]:
                lines.append(_row(preset, int(b), t["vanilla"][b], t["lg"][b]))
        for name, t in network.get("variants", {}).items():
            lines.append(_row(f"{base} `{name}`", BLOCK, t["vanilla"], t["lg"]))
    return "\n".join(lines) + "\n"


def _row(platform: str, block: int, v: float | None, g: float | None) -> str:
    """A table row; a run the simulator did not finish shows as "failed"."""
    ms = ["failed" if t is None else f"{t * 1e3:.2f}" for t in (v, g)]
    if v is None or g is None:
        return f"| {platform} | {size(block)} | {ms[0]} | {ms[1]} | - | - |"
    return (f"| {platform} | {size(block)} | {ms[0]} | {ms[1]} | {v / g:.2f}x | "
            f"{100 * (1 - g / v):.0f} % |")


def main() -> None:
    ap = seed_arguments(__doc__, "lg-30-30, small blocks (smoke)")
    ap.add_argument("--packet", action="store_true",
                    help="also the packet network (ns-3 TCP; about 2 h on 2 cores with --jobs 2)")
    ap.add_argument("--jobs", type=int, default=1, help="simulations at once (packet runs)")
    args = ap.parse_args()
    res = measure(args.out, args.quick, args.reuse)
    folder = args.out / "seed003"
    if args.packet:
        res["packet"] = measure_packet(folder, collbench(folder), args.reuse, args.jobs)
        (folder / "results.json").write_text(json.dumps(res, indent=1))
    plot(res, folder / "seed003.png")
    publish("seed003", folder, table(res), args.docs)


if __name__ == "__main__":
    main()
