#!/usr/bin/env python3
"""Seed 000 (Coti, Herault, Cappello: topology-aware MPI on grids) reproduced.

1. Hierarchical (topo) vs flat (vanilla: SMPI's `ompi` selector) MPI_Bcast and MPI_Reduce,
   the paper's Figure 2(a)/(b): `gridscope compare` on grid5000-2 with 32 ranks (the
   paper's 32 nodes over Orsay and Rennes), both placements, and on grid5000-3 (48 ranks,
   the three clusters of its Ray2mesh runs).
2. Ray2mesh, the paper's Figure 3: flat master-worker with vanilla collectives, with
   topology-aware collectives, and the hierarchical master-worker (a boss per site) with
   topology-aware collectives, on grid5000-3 at several process counts; plus the
   hierarchical version with 3 more processes (the paper's "workers and master only":
   as many workers as the flat run).

Writes OUT/seed000/{seed000.json,seed000.png,table.md}, prints the Markdown tables of
docs/seeds.md (--docs also copies the plot to docs/seeds/).
A long run (several minutes): a benchmark, not a test.

Usage: seed000.py [--out DIR] [--ranks 16,32,48,96] [--rays 4000] [--quick] [--reuse] [--docs]
(PYTHONPATH=src GRIDSCOPE_NATIVE_DIR=build/dev-native during development.)
"""

from __future__ import annotations

import json
from pathlib import Path

from common import gridscope, publish, seed_arguments, size

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
APP_SRC = REPO / "testdata" / "apps" / "ray2mesh" / "ray2mesh.c"
APP_COMMON = REPO / "testdata" / "apps" / "common"
SIZES = (8, 1024, 16384, 65536, 262144, 1048576)
COLL_RUNS = (("grid5000-2", 32, "block,round-robin"), ("grid5000-3", 48, "block"))
RAY_PLATFORM = "grid5000-3"
# (label, master-worker mode, collectives, extra ranks)
RAY_CONFIGS = (("vanilla", "--flat", "vanilla", 0),
               ("grid collectives", "--flat", "topo", 0),
               ("hierarchical + grid collectives", "--hierarchical", "topo", 0),
               ("hierarchical, workers and master only", "--hierarchical", "topo", 3))
NEVER_SLOWER = 0.98           # vanilla/topo at or above this counts as "not slower"


def collectives(out: Path, reuse: bool, runs=COLL_RUNS, sizes=SIZES) -> list[dict]:
    rows = []
    for platform, ranks, placements in runs:
        folder = out / f"coll-{platform}-{ranks}"
        if not (reuse and (folder / "compare.json").is_file()):
            gridscope("compare", "--platform", platform, "-np", ranks, "--placement",
                      placements, "--modes", "vanilla,topo", "--ops", "bcast,reduce",
                      "--sizes", ",".join(map(str, sizes)), "--no-analysis", "--force",
                      "-o", folder)
        for r in json.loads((folder / "compare.json").read_text())["rows"]:
            rows.append({"platform": platform, "ranks": ranks, "op": r["op"],
                         "bytes": r["bytes"], "placement": r["placement"],
                         "flat_s": r["vanilla_s"], "hier_s": r["topo_s"]})
    return rows


def ray2mesh(out: Path, binary: Path, ranks: list[int], rays: int, reuse: bool) -> list[dict]:
    rows = []
    for n in ranks:
        for label, mode, coll, extra in RAY_CONFIGS:
            np_ = n + extra
            log = out / "ray2mesh" / f"{mode[2:]}-{coll}-{np_}.json"
            if not (reuse and log.is_file()):
                proc = gridscope("record", "--platform", RAY_PLATFORM, "-np", np_, "--coll",
                                 coll, "--force", "-o", out / "ray2mesh" / "trace", "--",
                                 binary, mode, "--rays", rays, capture=True)
                line = next(l for l in proc.stdout.splitlines() if l.startswith("ray2mesh {"))
                log.parent.mkdir(parents=True, exist_ok=True)
                log.write_text(line[len("ray2mesh "):])
            rows.append({**json.loads(log.read_text()), "label": label, "ranks": n,
                         "processes": np_})
    return rows


def coll_table(rows: list[dict]) -> list[str]:
    sizes = sorted({r["bytes"] for r in rows})
    lines = ["| platform, ranks | op | placement | " + " | ".join(size(s) for s in sizes)
             + " | slowest ratio |", "|---|---|---|" + "---:|" * (len(sizes) + 1)]
    keys = sorted({(r["platform"], r["ranks"], r["op"], r["placement"]) for r in rows},
                  key=lambda k: (k[0], k[3], k[2]))
    for key in keys:
        sel = {r["bytes"]: r for r in rows
               if (r["platform"], r["ranks"], r["op"], r["placement"]) == key}
        ratios = [sel[s]["flat_s"] / sel[s]["hier_s"] for s in sizes]
        lines.append(f"| {key[0]}, {key[1]} | {key[2]} | {key[3]} | "
                     + " | ".join(f"{x:.2f}×" for x in ratios) + f" | {min(ratios):.2f}× |")
    return lines


def ray_table(rows: list[dict]) -> list[str]:
    lines = ["| ranks | version | processes | workers | broadcasts s | master-worker s | "
             "exchange s | total s | vs vanilla |", "|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    base = {r["ranks"]: r["total_s"] for r in rows if r["label"] == RAY_CONFIGS[0][0]}
    for r in rows:
        lines.append(f"| {r['ranks']} | {r['label']} | {r['processes']} | {r['workers']} | "
                     f"{r['broadcast_s']:.3f} | {r['master_worker_s']:.3f} | "
                     f"{r['exchange_s']:.3f} | {r['total_s']:.3f} | "
                     f"{base[r['ranks']] / r['total_s']:.2f}× |")
    return lines


def plot(coll: list[dict], rays: list[dict], path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    for (op, placement), colour in zip((("bcast", "block"), ("reduce", "block"),
                                        ("bcast", "round-robin"), ("reduce", "round-robin")),
                                       ("tab:blue", "tab:red", "tab:cyan", "tab:orange")):
        sel = sorted((r for r in coll if r["platform"] == "grid5000-2" and r["op"] == op
                      and r["placement"] == placement), key=lambda r: r["bytes"])
        if not sel:
            continue
        left.plot([r["bytes"] for r in sel], [r["flat_s"] * 1e3 for r in sel], "--",
                  color=colour, label=f"{op} flat ({placement})")
        left.plot([r["bytes"] for r in sel], [r["hier_s"] * 1e3 for r in sel], "o-",
                  color=colour, label=f"{op} hierarchical ({placement})")
    left.set_xscale("log", base=2)
    left.set_yscale("log")
    left.set_xlabel("message size (bytes)")
    left.set_ylabel("time (ms, slowest rank)")
    left.set_title("grid5000-2, 32 ranks (seed 000 Fig. 2a/b)")
    left.legend(fontsize=6)
    for (label, *_), style in zip(RAY_CONFIGS, ("o--", "s-", "^-", "v:")):
        sel = [r for r in rays if r["label"] == label]
        right.plot([r["ranks"] for r in sel], [r["total_s"] for r in sel], style, label=label)
    right.set_xlabel("processes (workers + masters; last line: + 3 bosses)")
    right.set_ylabel("ray2mesh time (s, slowest rank)")
    right.set_title(f"ray2mesh on {RAY_PLATFORM} (seed 000 Fig. 3a)")
    right.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    ap = seed_arguments(__doc__, "smoke run: grid5000-2 collectives only, ray2mesh at 16 ranks, 400 rays")
    ap.add_argument("--ranks", default="16,32,48,96")
    ap.add_argument("--rays", type=int, default=4000)
    a = ap.parse_args()
    out = a.out.resolve() / "seed000"
    out.mkdir(parents=True, exist_ok=True)
    binary = out / "bin" / "ray2mesh"
    binary.parent.mkdir(exist_ok=True)
    gridscope("cc", "--simulate", APP_SRC, f"-I{APP_COMMON}", "-O2", "-lm", "-o", binary)
    coll = collectives(out, a.reuse, COLL_RUNS[:1] if a.quick else COLL_RUNS,
                       SIZES[:2] if a.quick else SIZES)
    ranks = [16] if a.quick else [int(n) for n in a.ranks.split(",")]
    rays = ray2mesh(out, binary, ranks, 400 if a.quick else a.rays, a.reuse)
    (out / "seed000.json").write_text(json.dumps({"collectives": coll, "ray2mesh": rays},
                                                 indent=1))
    plot(coll, rays, out / "seed000.png")
    slowest = min(r["flat_s"] / r["hier_s"] for r in coll)
    text = "\n".join(["flat / hierarchical time (above 1: hierarchical faster):", "",
                      *coll_table(coll), "",
                      f"slowest ratio {slowest:.2f}× (not slower: ≥ {NEVER_SLOWER})", "",
                      *ray_table(rays), ""])
    publish("seed000", out, text, a.docs)


if __name__ == "__main__":
    main()
