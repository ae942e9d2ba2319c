"""Charts of the report, drawn with matplotlib and embedded as SVG data URIs.

An <img> with an SVG data URI keeps every chart self-contained, keeps the ids of different
charts apart and never runs anything inside the SVG. Glyphs are drawn as paths, so names
from a trace never reach the HTML as markup.
"""

from __future__ import annotations

import base64
import io

GRID_COLOUR = "#c0392b"
LOCAL_COLOUR = "#2c7fb8"
GAIN_COLOUR = "#1a9850"
LOSS_COLOUR = "#d73027"
RUN_COLOURS = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860")
VARIANT_STYLE = {"vanilla_s": ("vanilla", "#7f7f7f", "o"), "topo_s": ("topology-aware", "#2c7fb8", "s"),
                 "auto_s": ("auto", "#1a9850", "^"), "bound_s": ("lower bound", "#000000", "")}


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"font.size": 9, "axes.spines.top": False, "axes.spines.right": False,
                         "svg.fonttype": "path", "svg.hashsalt": "gridscope",
                         "axes.titleweight": "bold", "axes.titlesize": 10})
    return plt


def _embed(fig) -> str:
    plt = _plt()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    return "data:image/svg+xml;base64," + base64.b64encode(buffer.getvalue()).decode()


def _shorten(text: str, width: int = 48) -> str:
    return text if len(text) <= width else "…" + text[-(width - 1):]


def waitstates_chart(runs: list[tuple[str, list[dict]]]) -> str:
    """Per pattern grid and local % of total time, one stacked bar per run."""
    plt = _plt()
    patterns = list(dict.fromkeys(r["display"] for _, rows in runs for r in rows))
    if not patterns:
        return ""
    n_runs = len(runs)
    height = max(2.2, 0.32 * len(patterns) * n_runs + 1.0)
    fig, ax = plt.subplots(figsize=(7.6, height))
    bar = 0.8 / n_runs
    for k, (name, rows) in enumerate(runs):
        by_name = {r["display"]: r for r in rows}
        ys = [i + (k - (n_runs - 1) / 2) * bar for i in range(len(patterns))]
        grid = [(by_name.get(p, {}).get("grid_pct") or 0.0) for p in patterns]
        local = [(by_name.get(p, {}).get("local_pct") or 0.0) for p in patterns]
        ax.barh(ys, grid, height=bar * 0.9, color=GRID_COLOUR, alpha=1 - 0.5 * k / max(n_runs, 1),
                label="grid" if k == 0 else None, edgecolor="white", linewidth=0.4)
        ax.barh(ys, local, left=grid, height=bar * 0.9, color=LOCAL_COLOUR,
                alpha=1 - 0.5 * k / max(n_runs, 1), label="local" if k == 0 else None,
                edgecolor="white", linewidth=0.4)
        if n_runs > 1:
            for y, g, l in zip(ys, grid, local):
                if g + l > 0:
                    ax.text(g + l, y, f" {_shorten(name, 18)}", va="center", fontsize=7,
                            color="#444444")
    ax.set_yticks(range(len(patterns)), patterns)
    ax.invert_yaxis()
    ax.set_xlabel("% of total time (summed over ranks)")
    ax.legend(loc="lower right", frameon=False)
    ax.grid(axis="x", color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)
    return _embed(fig)


def callpath_chart(rows: list[dict]) -> str:
    """Top call paths by waiting time, coloured by grid/local."""
    if not rows:
        return ""
    plt = _plt()
    rows = rows[:10]
    fig, ax = plt.subplots(figsize=(7.6, 0.34 * len(rows) + 0.9))
    labels = [f"{r['display']} · {_shorten(r['callpath'], 44)}" for r in rows]
    values = [r["pct"] or 0.0 for r in rows]
    colours = [GRID_COLOUR if r.get("class") == "grid" else LOCAL_COLOUR for r in rows]
    ax.barh(range(len(rows)), values, color=colours)
    ax.set_yticks(range(len(rows)), labels, fontsize=7.5)
    ax.invert_yaxis()
    ax.set_xlabel("% of total time")
    ax.grid(axis="x", color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)
    return _embed(fig)


def cycles_chart(names: list[str], table: list[dict]) -> str:
    """Seed 002 Figure 5 style: MPI fraction and wait states per cycle, total time."""
    plt = _plt()
    metrics = [row for row in table if row["key"] != "total_s"]
    totals = next(row for row in table if row["key"] == "total_s")["values"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(9.2, 3.0),
                                      gridspec_kw={"width_ratios": [2.3, 1]})
    width = 0.8 / len(names)
    for k, name in enumerate(names):
        xs = [i + (k - (len(names) - 1) / 2) * width for i in range(len(metrics))]
        values = [row["values"][k] or 0.0 for row in metrics]
        left.bar(xs, values, width=width * 0.92, color=RUN_COLOURS[k % len(RUN_COLOURS)],
                 label=_shorten(name, 24))
    left.set_xticks(range(len(metrics)), [row["label"] for row in metrics])
    left.set_ylabel("% of total time")
    left.legend(frameon=False, fontsize=8)
    left.grid(axis="y", color="#dddddd", linewidth=0.6)
    left.set_axisbelow(True)
    right.bar(range(len(names)), totals, color=[RUN_COLOURS[k % len(RUN_COLOURS)]
                                                for k in range(len(names))])
    right.set_xticks(range(len(names)), [_shorten(n, 14) for n in names], rotation=20,
                     ha="right", fontsize=8)
    right.set_ylabel("total time (s, all ranks)")
    right.set_title("Total time")
    left.set_title("MPI fraction and wait states")
    fig.tight_layout()
    return _embed(fig)


def diff_chart(rows: list[dict]) -> str:
    """Changes in % of the base run's time: gains left (green), losses right (red)."""
    rows = [r for r in rows if r.get("percent_of_base")][:10]
    if not rows:
        return ""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7.6, 0.34 * len(rows) + 0.9))
    values = [r["percent_of_base"] for r in rows]
    labels = [f"{r['display']} ({r.get('class', '')}) · {_shorten(r['callpath'], 40)}"
              for r in rows]
    ax.barh(range(len(rows)), values, color=[GAIN_COLOUR if v < 0 else LOSS_COLOUR
                                             for v in values])
    ax.axvline(0, color="#333333", linewidth=0.8)
    ax.set_yticks(range(len(rows)), labels, fontsize=7.5)
    ax.invert_yaxis()
    ax.set_xlabel("change in % of the base run's total time (negative = gain)")
    ax.grid(axis="x", color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)
    return _embed(fig)


def _size_free_bars(ax, rows: list[dict], placements: list[str], op: str) -> None:
    keys = [k for k in VARIANT_STYLE if any(r[k] is not None for r in rows)]
    width = 0.8 / max(len(keys), 1)
    for j, key in enumerate(keys):
        label, colour, _ = VARIANT_STYLE[key]
        values = [next((r[key] for r in rows if r["placement"] == p and r[key] is not None),
                       0.0) for p in placements]
        ax.bar([i + (j - (len(keys) - 1) / 2) * width for i in range(len(placements))],
               values, width=width * 0.9, color=colour, label=None, alpha=0.85)
    ax.set_xticks(range(len(placements)), placements, fontsize=8)
    ax.set_title(_shorten(op, 28))
    ax.set_ylabel("time (s)")
    ax.ticklabel_format(axis="y", style="sci", scilimits=(-2, 3))
    ax.grid(axis="y", color="#eeeeee", linewidth=0.6)


def compare_chart(rows: list[dict]) -> str:
    """Time per collective against message size: vanilla, topology-aware, auto, bound."""
    if not rows:
        return ""
    plt = _plt()
    ops = list(dict.fromkeys(r["op"] for r in rows))
    cols = min(3, len(ops))
    nrows = (len(ops) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(3.3 * cols, 2.6 * nrows), squeeze=False)
    for ax, op in zip(axes.flat, ops):
        mine = sorted((r for r in rows if r["op"] == op), key=lambda r: r["bytes"])
        placements = list(dict.fromkeys(r["placement"] for r in mine))
        if not any(r["bytes"] > 0 for r in mine):  # e.g. barrier: no size axis, bars
            _size_free_bars(ax, mine, placements, op)
            continue
        for key, (label, colour, marker) in VARIANT_STYLE.items():
            for j, place in enumerate(placements):
                pts = [(r["bytes"], r[key]) for r in mine if r["placement"] == place
                       and r[key] is not None and r["bytes"] > 0]
                if not pts:
                    continue
                ax.plot(*zip(*pts), marker=marker or None, markersize=3, color=colour,
                        linestyle="--" if key == "bound_s" else ("-" if j == 0 else ":"),
                        linewidth=1.1, label=label if j == 0 else None)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(_shorten(op, 28))
        ax.set_xlabel("message size (bytes)")
        ax.set_ylabel("time (s)")
        ax.grid(color="#eeeeee", linewidth=0.6)
    for ax in list(axes.flat)[len(ops):]:
        ax.axis("off")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, frameon=False,
               bbox_to_anchor=(0.5, -0.04))
    fig.tight_layout()
    return _embed(fig)


def timeline_chart(matrix, t0: float, t1: float, ranks: list[int], metahosts: list[str]) -> str:
    """Waiting share per rank over time (rank × time heat map), metahosts separated."""
    plt = _plt()
    bins = matrix.shape[1]
    width = (t1 - t0) / bins
    share = 100.0 * matrix / width
    fig, ax = plt.subplots(figsize=(8.2, max(2.2, 0.11 * len(ranks) + 1.2)))
    image = ax.imshow(share, aspect="auto", interpolation="nearest", cmap="magma_r",
                      vmin=0, vmax=100, extent=(t0, t1, len(ranks) - 0.5, -0.5))
    boundaries = [i for i in range(1, len(metahosts)) if metahosts[i] != metahosts[i - 1]]
    for b in boundaries:
        ax.axhline(b - 0.5, color="#1f4e79", linewidth=1.2)
    starts = [0] + boundaries
    ends = boundaries + [len(metahosts)]
    for lo, hi in zip(starts, ends):
        ax.text(1.01, 1 - ((lo + hi) / 2) / len(metahosts), _shorten(metahosts[lo], 16),
                transform=ax.transAxes, va="center", fontsize=8, color="#1f4e79")
    step = max(1, len(ranks) // 12)
    ax.set_yticks(range(0, len(ranks), step), [str(r) for r in ranks[::step]], fontsize=7)
    ax.set_ylabel("rank")
    ax.set_xlabel("time (s)")
    bar = fig.colorbar(image, ax=ax, pad=0.09, fraction=0.04)
    bar.set_label("% of the time waiting", fontsize=8)
    return _embed(fig)


KIND_COLOURS = (("computation", "computation", "#4c72b0"), ("communication", "communication", "#dd8452"),
                ("wan", "WAN transfer", "#c0392b"))


def why_chart(pairs: list[dict]) -> str:
    """Who causes how much waiting on whom: a cause x waiting metahost matrix of seconds
    (left) and, per site pair, the seconds by kind of cause (right)."""
    pairs = [p for p in pairs if p["total"] > 0]
    if not pairs:
        return ""
    plt = _plt()
    hosts = sorted({p["cause"] for p in pairs} | {p["waiting"] for p in pairs})
    matrix = [[0.0] * len(hosts) for _ in hosts]
    for p in pairs:
        matrix[hosts.index(p["cause"])][hosts.index(p["waiting"])] = p["total"]
    shown = pairs[:10]
    fig, (left, right) = plt.subplots(1, 2, figsize=(9.2, max(2.6, 0.55 * len(hosts) + 1.4, 0.34 * len(shown) + 1.2)),
                                      gridspec_kw={"width_ratios": [1, 1.5]})
    top = max(max(row) for row in matrix)
    left.imshow(matrix, cmap="Reds", vmin=0, vmax=top or 1)
    for i, row in enumerate(matrix):
        for j, value in enumerate(row):
            left.text(j, i, f"{value:.3g}" if value else "–", ha="center", va="center", fontsize=8,
                      color="white" if value > 0.6 * top else "#222222")
    left.set_xticks(range(len(hosts)), [_shorten(h, 14) for h in hosts], rotation=30, ha="right")
    left.set_yticks(range(len(hosts)), [_shorten(h, 14) for h in hosts])
    left.set_xlabel("waiting metahost")
    left.set_ylabel("causing metahost")
    left.set_title("Seconds of waiting caused")
    left.spines[:].set_visible(False)
    labels = [f"{_shorten(p['cause'], 12)} → {_shorten(p['waiting'], 12)}" for p in shown]
    start = [0.0] * len(shown)
    for key, label, colour in KIND_COLOURS:
        values = [p.get(key, 0.0) for p in shown]
        if any(values):
            right.barh(range(len(shown)), values, left=start, height=0.6, color=colour, label=label)
            start = [a + b for a, b in zip(start, values)]
    right.set_yticks(range(len(shown)), labels, fontsize=8)
    right.invert_yaxis()
    right.set_xlabel("seconds (summed over ranks)")
    right.set_title("By kind of cause")
    right.legend(frameon=False, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.28), ncol=3)
    right.grid(axis="x", color="#dddddd", linewidth=0.6)
    right.set_axisbelow(True)
    fig.tight_layout()
    return _embed(fig)
