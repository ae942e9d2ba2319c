#!/usr/bin/env python3
"""Seed 003 (Jeannot, Steffenel): LG all-to-all against vanilla (SimGrid's `ompi` selection)
on two clusters, n1 = n2 = 30 (lg-30-30) and n1 = 20, n2 = 40 (lg-20-40), over block sizes;
then the same at 64 KiB blocks on variants of lg-30-30 that change one platform property,
to show which one decides LG's gain for large blocks:

- `fast-nodes`: node links 10 Gb/s instead of 894 Mb/s (LG's extra local phase is cheap);
- `wan-per-flow`: the 10 Gb/s backbone is a per-flow limit, not shared (WAN not a bottleneck);
- `wan-1g`: a 1 Gb/s shared backbone (the WAN dominates everything).

Writes OUT/seed003/{results.json,seed003.png,table.md}. --quick: lg-30-30, 1 B .. 4 KiB.
"""

from __future__ import annotations

import json
from pathlib import Path

from common import REPO, collbench, publish, pyplot, run_collbench, seed_arguments, size

PRESETS = ("lg-30-30", "lg-20-40")
PRESET_DIR = REPO / "src" / "gridscope" / "testbed" / "presets"
VARIANTS = {  # name: (text replaced in lg-30-30.toml, replacement)
    "fast-nodes": ('bandwidth = "894.39Mbps"', 'bandwidth = "10Gbps"'),
    "wan-per-flow": ('sharing = "shared"', 'sharing = "per-flow"'),
    "wan-1g": ('bandwidth = "10Gbps"', 'bandwidth = "1Gbps"'),
    "equal-fairness": ("[platform]\n", '[platform]\nflow_fairness = "equal"\n'),
}
BLOCK = 1 << 16


def measure(out: Path, quick: bool, reuse: bool) -> dict:
    folder = out / "seed003"
    exe = collbench(folder)
    hi = 1 << 12 if quick else 1 << 19
    res: dict = {"presets": {}, "variants": {}}
    for preset in PRESETS[:1] if quick else PRESETS:
        res["presets"][preset] = {
            algo: {str(b): t for b, t in sorted(run_collbench(
                exe, preset, 60, folder / preset / algo, "alltoall", 1, hi,
                {"GRIDSCOPE_COLL_ALLTOALL": algo}, reuse).items())}
            for algo in ("vanilla", "lg")}
    if not quick:
        base = (PRESET_DIR / "lg-30-30.toml").read_text()
        for name, (old, new) in VARIANTS.items():
            toml = folder / f"lg-30-30-{name}.toml"
            toml.write_text(base.replace(old, new))
            res["variants"][name] = {
                algo: run_collbench(exe, str(toml), 60, folder / name / algo, "alltoall", BLOCK,
                                    BLOCK, {"GRIDSCOPE_COLL_ALLTOALL": algo}, reuse)[BLOCK]
                for algo in ("vanilla", "lg")}
    (folder / "results.json").write_text(json.dumps(res, indent=1))
    return res


def plot(res: dict, path: Path) -> None:
    plt = pyplot()
    presets = list(res["presets"])
    fig, axes = plt.subplots(1, len(presets) + 1, figsize=(4.2 * (len(presets) + 1), 3.6),
                             squeeze=False)
    ax_ratio = axes[0][-1]
    for j, preset in enumerate(presets):
        t = res["presets"][preset]
        sizes = [int(b) for b in t["vanilla"]]
        ax = axes[0][j]
        ax.plot(sizes, [t["vanilla"][str(b)] for b in sizes], "o-", label="vanilla (ompi)",
                markersize=4)
        ax.plot(sizes, [t["lg"][str(b)] for b in sizes], "s-", label="LG", markersize=4)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(f"{preset}, 60 ranks", fontsize=9)
        ax.set_xlabel("block size (bytes)", fontsize=8)
        ax.set_ylabel("alltoall time (s)", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=7)
        ax_ratio.plot(sizes, [t["vanilla"][str(b)] / t["lg"][str(b)] for b in sizes], "o-",
                      label=preset, markersize=4)
    ax_ratio.axhspan(1 / 0.6, 1 / 0.4, color="grey", alpha=0.2,
                     label="paper, large blocks (40-60 % less)")
    ax_ratio.axhline(1.0, color="black", linewidth=0.8)
    ax_ratio.set_xscale("log", base=2)
    ax_ratio.set_yscale("log")
    ax_ratio.set_title("speed-up vanilla / LG", fontsize=9)
    ax_ratio.set_xlabel("block size (bytes)", fontsize=8)
    ax_ratio.tick_params(labelsize=7)
    ax_ratio.legend(fontsize=7)
    fig.suptitle("seed 003: LG all-to-all on two clusters (SimGrid SMPI)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


def table(res: dict) -> str:
    lines = ["| platform | block | vanilla ms | LG ms | vanilla / LG | LG time saved |",
             "|---|---:|---:|---:|---:|---:|"]
    for preset, t in res["presets"].items():
        for b in t["vanilla"]:
            v, g = t["vanilla"][b], t["lg"][b]
            lines.append(f"| {preset} | {size(int(b))} | {v * 1e3:.2f} | {g * 1e3:.2f} | "
                         f"{v / g:.2f}x | {100 * (1 - g / v):.0f} % |")
    for name, t in res["variants"].items():
        v, g = t["vanilla"], t["lg"]
        lines.append(f"| lg-30-30 `{name}` | {size(BLOCK)} | {v * 1e3:.2f} | {g * 1e3:.2f} | "
                     f"{v / g:.2f}x | {100 * (1 - g / v):.0f} % |")
    return "\n".join(lines) + "\n"


def main() -> None:
    args = seed_arguments(__doc__, "lg-30-30, small blocks (smoke)").parse_args()
    res = measure(args.out, args.quick, args.reuse)
    folder = args.out / "seed003"
    plot(res, folder / "seed003.png")
    publish("seed003", folder, table(res), args.docs)


if __name__ == "__main__":
    main()
