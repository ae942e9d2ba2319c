"""compare.json, the terminal table, the plot and the wait-state comparison."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from gridscope.errors import GridscopeError

MODES = ("vanilla", "topo", "auto")


@dataclass
class Row:
    op: str
    bytes: int
    placement: str
    vanilla_s: float | None
    topo_s: float | None
    auto_s: float | None
    bound_s: float | None
    topo_predicted_s: float | None = None  # compare --predict: topo predicted from vanilla


def speedup(row: Row) -> float | None:
    if row.vanilla_s is None or not row.topo_s:
        return None
    return row.vanilla_s / row.topo_s


def _predicted(rows: list[Row]) -> bool:
    return any(r.topo_predicted_s is not None for r in rows)


def write_json(path: Path, platform: str, ranks: int, rows: list[Row],
               late: dict | None = None) -> None:
    """compare.json; rows carry topo_predicted_s only when there are predictions; LATE
    (site, seconds) only when a site arrived late, the times then being after its arrival."""
    keep = _predicted(rows)
    doc = {"platform": platform, "ranks": ranks, **({"late": late} if late else {}),
           "rows": [{k: v for k, v in asdict(r).items() if keep or k != "topo_predicted_s"}
                    for r in rows]}
    path.write_text(json.dumps(doc, indent=2) + "\n")


def _fmt_s(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x * 1e3:.2f} ms" if x < 10 else f"{x:.2f} s"


def _fmt_size(n: int) -> str:
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n} B"


def print_table(console, title: str, rows: list[Row]) -> None:  # noqa: ANN001 - rich Console
    from rich.table import Table

    table = Table(title=title)
    predicted = _predicted(rows)
    for col in ("op", "bytes", "placement", "vanilla", "topo", *(("topo predicted",) if predicted else ()),
                "auto", "bound", "topo/bound", "speed-up", "auto/vanilla"):
        table.add_column(col, justify="left" if col in ("op", "placement") else "right")
    for r in rows:
        sp = speedup(r)
        ratio = f"{r.topo_s / r.bound_s:.2f}" if r.topo_s and r.bound_s else "-"
        av = f"{r.auto_s / r.vanilla_s:.2f}" if r.auto_s and r.vanilla_s else "-"
        table.add_row(r.op, _fmt_size(r.bytes), r.placement, _fmt_s(r.vanilla_s),
                      _fmt_s(r.topo_s), *((_fmt_s(r.topo_predicted_s),) if predicted else ()),
                      _fmt_s(r.auto_s), _fmt_s(r.bound_s), ratio,
                      f"{sp:.2f}x" if sp else "-", av)
    console.print(table)


def plot(path: Path, platform: str, ranks: int, rows: list[Row]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ops = sorted({r.op for r in rows}, key=[r.op for r in rows].index)
    placements = sorted({r.placement for r in rows})
    fig, axes = plt.subplots(len(placements), len(ops), figsize=(2.6 * len(ops), 2.6 * len(placements)),
                             squeeze=False)
    for i, pl in enumerate(placements):
        for j, op in enumerate(ops):
            ax = axes[i][j]
            sel = sorted((r for r in rows if r.op == op and r.placement == pl),
                         key=lambda r: r.bytes)
            xs = [max(r.bytes, 1) for r in sel]
            for mode, style in (("vanilla", "o-"), ("topo", "s-"), ("auto", "x--"),
                                ("topo_predicted", "^:")):
                ys = [getattr(r, f"{mode}_s") for r in sel]
                if any(y is not None for y in ys):
                    ax.plot(xs, [y if y is not None else float("nan") for y in ys], style,
                            label=mode, markersize=4)
            ys = [r.bound_s for r in sel]
            if any(y is not None for y in ys):
                ax.plot(xs, ys, ":", color="grey", label="bound")
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_title(f"{op} ({pl})", fontsize=9)
            ax.tick_params(labelsize=7)
            if j == 0:
                ax.set_ylabel("time per call (s)", fontsize=8)
            if i == len(placements) - 1:
                ax.set_xlabel("bytes", fontsize=8)
    axes[0][0].legend(fontsize=7)
    fig.suptitle(f"vanilla vs topology-aware collectives, {platform}, {ranks} ranks", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def load_patterns(analysis: Path) -> dict[str, dict[str, float]]:
    summary = analysis / "summary.json"
    try:
        return json.loads(summary.read_text())["patterns"]
    except FileNotFoundError:
        raise GridscopeError(summary, "analysis wrote no summary.json") from None
    except (ValueError, KeyError) as err:
        raise GridscopeError(summary, f"not an analysis summary: {err}") from None


def waitstate_rows(per_mode: dict[str, dict[str, dict[str, float]]]) -> list[dict]:
    """One row per (pattern, class) with the seconds of every mode, patterns seen anywhere."""
    rows = []
    patterns = sorted({p for pats in per_mode.values() for p in pats})
    for pattern in patterns:
        for cls in ("grid", "local"):
            values = {m: per_mode[m].get(pattern, {}).get(cls, 0.0) for m in per_mode}
            if any(v > 0 for v in values.values()):
                rows.append({"pattern": pattern, "class": cls, **{f"{m}_s": v
                                                                   for m, v in values.items()}})
    return rows


def print_waitstates(console, placement: str, rows: list[dict], modes: list[str]) -> None:  # noqa: ANN001
    from rich.table import Table

    table = Table(title=f"wait states ({placement}), seconds summed over ranks")
    table.add_column("pattern")
    table.add_column("class")
    for m in modes:
        table.add_column(m, justify="right")
    for r in rows:
        table.add_row(r["pattern"], r["class"], *(f"{r[f'{m}_s']:.4f}" for m in modes))
    console.print(table)
