"""Shared helpers of the seed reproductions: run gridscope, build collbench, format sizes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
DEFAULT_OUT = Path("/tmp/gridscope-seeds")
DOCS_PLOTS = REPO / "docs" / "seeds"  # the plots docs/seeds.md shows (--docs)


def gridscope(*args: str, env: dict | None = None) -> None:
    cmd = [sys.executable, "-m", "gridscope", *args]
    print("+", " ".join(cmd), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                   env={**os.environ, **(env or {})})


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
                  max_bytes: int, env: dict, reuse: bool) -> dict[int, float]:
    """Slowest rank's time per call in seconds, by bytes (collbench's own timing)."""
    js = run / "collbench.json"
    if not (reuse and js.exists()):
        run.mkdir(parents=True, exist_ok=True)
        gridscope("record", "--platform", platform, "-np", str(ranks), "--coll", "topo",
                  "--force", "-o", str(run / "trace"), "--", str(exe), "--ops", op,
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
