#!/usr/bin/env python3
"""Seed 001 (Chiba, Endo, Matsuoka): multi-lane two-tree pipelined broadcast on nodes with
two NICs, against the pipelined binary tree, the binomial tree, the pipelined chain (our
`hier`, one lane) and vanilla (SimGrid's `ompi` selection), over message sizes.

- one site: preset presto-2nic-32 (sec. 6.2, Figure 7: 32 nodes);
- two sites: preset presto-2nic-16-16 (sec. 6.3, Figure 8: 16 + 16 nodes, L = 10 ms; the
  multi-lane trees chained between the sites, sec. 3.2);
- two sites with equal flow fairness: presto-2nic-16-16 with `flow_fairness = "equal"`
  (docs/testbed.md): the chain's 10 ms WAN flow shares its node's NICs equally with the
  local 0.1 ms flows, as in the paper's simulator, instead of in inverse proportion to
  the round-trip times as TCP (and SimGrid's default) share them;
- controls: presto-2nic-32 with one NIC per node (nics = 1, 1 Gbps), and with two NICs that
  a transfer cannot aggregate (bandwidth = nic_bandwidth = 1 Gbps: one transfer, one NIC),
  to show where the gain comes from.

Every algorithm is forced with GRIDSCOPE_COLL_BCAST (GRIDSCOPE_COLL_ONE_SITE=1 lets the
named broadcasts run inside one metahost). Writes OUT/seed001/{results.json,seed001.png,
table.md}. --quick: one site, 1 KiB .. 256 KiB (a smoke run, seconds).
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from common import collbench, publish, pyplot, run_collbench, seed_arguments, size

ALGOS = ("vanilla", "binomial", "binary", "hier", "multilane")
LABELS = {"vanilla": "vanilla (ompi)", "binomial": "binomial", "binary": "binary, pipelined",
          "hier": "chain, pipelined (1 lane)", "multilane": "multi-lane, pipelined"}
ONE_NIC = """# presto-2nic-32 with one 1 Gbps NIC per node (control of seed001.py)
[metahost.presto]
nodes = 32
cores = 1
speed = "1.6Gf"
bandwidth = "1Gbps"
latency = "0.1ms"
"""
NO_AGGREGATION = """# presto-2nic-32 whose NICs a transfer cannot aggregate (control of seed001.py)
[metahost.presto]
nodes = 32
cores = 1
speed = "1.6Gf"
nics = 2
nic_bandwidth = "1Gbps"
bandwidth = "1Gbps"
latency = "0.1ms"
"""
# the paper's statements (sec. 6.2, 6.3), for the table
PAPER = {"one-site": "large M: binary 2x, binomial 4x multi-lane; small M: binary, binomial "
                     "slightly faster",
         "two-sites": "binary ~3x, binomial ~4x multi-lane; multi-lane ~ single chain",
         "two-sites-equal": "binary ~3x, binomial ~4x multi-lane (the paper's simulator shares "
                            "links without regard to latency)",
         "one-site-1nic": "(not in the paper)",
         "one-site-2nic-noagg": "(not in the paper)"}


def configs(folder: Path, quick: bool) -> list[tuple[str, str, str]]:
    """(key, platform, title)"""
    one_nic = folder / "presto-1nic-32.toml"
    one_nic.write_text(ONE_NIC)
    no_agg = folder / "presto-2nic-noagg-32.toml"
    no_agg.write_text(NO_AGGREGATION)
    equal = folder / "presto-2nic-16-16-equal.toml"
    preset = (resources.files("gridscope.testbed") / "presets" / "presto-2nic-16-16.toml").read_text()
    equal.write_text(preset.replace("[platform]\n", '[platform]\nflow_fairness = "equal"\n', 1))
    runs = [("one-site", "presto-2nic-32", "one site, 32 nodes x 2 NICs (Fig. 7)")]
    if not quick:
        runs += [("two-sites", "presto-2nic-16-16", "two sites 16 + 16, L = 10 ms (Fig. 8)"),
                 ("two-sites-equal", str(equal), "two sites, flows share links equally"),
                 ("one-site-1nic", str(one_nic), "one site, 32 nodes x 1 NIC (control)"),
                 ("one-site-2nic-noagg", str(no_agg),
                  "one site, 2 NICs, one NIC per transfer (control)")]
    return runs


def measure(out: Path, quick: bool, reuse: bool) -> dict:
    folder = out / "seed001"
    exe = collbench(folder)
    lo, hi = (1 << 10, 1 << 18) if quick else (1 << 10, 1 << 25)
    res: dict = {}
    for key, platform, title in configs(folder, quick):
        res[key] = {"platform": platform, "title": title, "times_s": {}}
        for algo in ALGOS:
            times = run_collbench(exe, platform, 32, folder / key / algo, "bcast", lo, hi,
                                  {"GRIDSCOPE_COLL_BCAST": algo, "GRIDSCOPE_COLL_ONE_SITE": "1"},
                                  reuse)
            res[key]["times_s"][algo] = {str(b): t for b, t in sorted(times.items())}
    (folder / "results.json").write_text(json.dumps(res, indent=1))
    return res


def plot(res: dict, path: Path) -> None:
    plt = pyplot()
    keys = list(res)
    fig, axes = plt.subplots(2, len(keys), figsize=(3.8 * len(keys), 6.4), squeeze=False)
    for j, key in enumerate(keys):
        times = res[key]["times_s"]
        sizes = [int(b) for b in times["multilane"]]
        top, bottom = axes[0][j], axes[1][j]
        for algo, style in zip(ALGOS, ("o-", "v-", "s-", "d-", "*-")):
            ys = [times[algo][str(b)] for b in sizes]
            top.plot(sizes, ys, style, label=LABELS[algo], markersize=4)
            bottom.plot(sizes, [y / times["multilane"][str(b)] for b, y in zip(sizes, ys)],
                        style, label=LABELS[algo], markersize=4)
        for ax in (top, bottom):
            ax.set_xscale("log", base=2)
            ax.tick_params(labelsize=7)
            ax.set_xlabel("message size (bytes)", fontsize=8)
        top.set_yscale("log")
        top.set_title(res[key]["title"], fontsize=9)
        top.set_ylabel("broadcast time (s)", fontsize=8)
        bottom.set_ylabel("time / multi-lane time", fontsize=8)
        bottom.axhline(2.0, color="grey", linestyle=":", linewidth=1)
    axes[0][0].legend(fontsize=7)
    fig.suptitle("seed 001: multi-lane broadcast on two-NIC nodes (SimGrid SMPI, 32 ranks)",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


def table(res: dict) -> str:
    lines = []
    for key, r in res.items():
        t = r["times_s"]
        lines += [f"**{r['title']}** (`{Path(r['platform']).name}`); paper: {PAPER[key]}", "",
                  "| bytes | " + " | ".join(f"{a} ms" for a in ALGOS)
                  + " | binary / multi-lane | binomial / multi-lane |",
                  "|---:|" + "---:|" * (len(ALGOS) + 2)]
        for b in t["multilane"]:
            ml = t["multilane"][b]
            cells = " | ".join(f"{t[a][b] * 1e3:.2f}" for a in ALGOS)
            lines.append(f"| {size(int(b))} | {cells} | {t['binary'][b] / ml:.2f} | "
                         f"{t['binomial'][b] / ml:.2f} |")
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    args = seed_arguments(__doc__, "one site, small sizes (smoke)").parse_args()
    res = measure(args.out, args.quick, args.reuse)
    folder = args.out / "seed001"
    plot(res, folder / "seed001.png")
    publish("seed001", folder, table(res), args.docs)


if __name__ == "__main__":
    main()
