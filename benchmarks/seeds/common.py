"""Shared helpers of the seed reproductions: run gridscope, build collbench, format sizes."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
DEFAULT_OUT = Path("/tmp/gridscope-seeds")
DOCS_PLOTS = REPO / "docs" / "seeds"  # the plots docs/seeds.md shows (--docs)


# a real MPI fallback inside a step would need these (simulated runs ignore them)
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


def gridscope(*args, env: dict | None = None, capture: bool = False) -> subprocess.CompletedProcess:
    """Run `gridscope ARGS` (echoed on stderr); CAPTURE keeps its output, else stdout is dropped."""
    cmd = [sys.executable, "-m", "gridscope", *map(str, args)]
    print("+", " ".join(cmd), file=sys.stderr, flush=True)
    return subprocess.run(cmd, check=True, text=True, capture_output=capture,
                          stdout=None if capture else subprocess.DEVNULL,
                          env={**os.environ, **MPI_ENV, **(env or {})})


def seed_arguments(doc: str, quick: str) -> argparse.ArgumentParser:
    """The options every seed script has (--out, --quick, --reuse, --docs); a script adds its own."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--quick", action="store_true", help=quick)
    ap.add_argument("--reuse", action="store_true", help="keep runs already measured")
    ap.add_argument("--docs", action="store_true", help="also copy the plot to docs/seeds/")
    return ap


def publish(name: str, folder: Path, text: str, docs: bool) -> None:
    """FOLDER/table.md and the terminal get TEXT; with DOCS the plot FOLDER/NAME.png goes to docs/seeds/."""
    (folder / "table.md").write_text(text)
    print(text + f"\nplot: {folder / f'{name}.png'}")
    if docs:
        DOCS_PLOTS.mkdir(exist_ok=True)
        shutil.copy(folder / f"{name}.png", DOCS_PLOTS / f"{name}.png")


def collbench(folder: Path) -> Path:
    """collbench built for the simulator, once per output folder."""
    exe = folder / "collbench"
    if not exe.exists():
        folder.mkdir(parents=True, exist_ok=True)
        from gridscope import native  # installed or GRIDSCOPE_NATIVE_DIR, as the demo finds its apps

        share = native.share_dir() / "apps"
        gridscope("cc", "--simulate", f"-I{share / 'common'}", "-O2",
                  str(share / "collbench" / "collbench.c"), "-o", str(exe))
    return exe


def run_collbench(exe: Path, platform: str, ranks: int, run: Path, op: str, min_bytes: int,
                  max_bytes: int, env: dict, reuse: bool,
                  layout: str | None = None) -> dict[int, float]:
    """Slowest rank's time per call in seconds, by bytes (collbench's own timing). LAYOUT
    gives the ranks per metahost (gridscope record --layout; default: even shares)."""
    js = run / "collbench.json"
    if not (reuse and js.exists()):
        run.mkdir(parents=True, exist_ok=True)
        placement = ["--layout", layout] if layout else []
        gridscope("record", "--platform", platform, "-np", str(ranks), *placement, "--coll",
                  "topo", "--force", "-o", str(run / "trace"), "--", str(exe), "--ops", op,
                  "--min", str(min_bytes), "--max", str(max_bytes), "--iterations", "1",
                  "--warmup", "1", "--json", str(js), env=env)
    return {r["bytes"]: r["max_us"] / 1e6 for r in json.loads(js.read_text())["results"]}


def size(n: int) -> str:
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div and n % div == 0:
            return f"{n // div} {unit}"
    return f"{n} B"


def pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt
