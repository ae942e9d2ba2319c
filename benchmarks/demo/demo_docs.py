"""Write the demo's results into docs/report.md (its GENERATED section), from a demo run:

    PYTHONPATH=src GRIDSCOPE_NATIVE_DIR=build/dev-native .venv/bin/python benchmarks/demo/demo_docs.py \
        [--demo DIR]

Without --demo it runs `gridscope demo --no-compare` into a temporary folder first (about
half a minute); the text is gridscope.demo_story.demo_markdown's, which
tests/report/test_demo_docs.py checks against a fresh demo run.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "report.md"
SCRIPT = "benchmarks/demo/demo_docs.py"


def _write_generated():
    spec = importlib.util.spec_from_file_location("bench_figures", REPO / "benchmarks" / "collectives" / "figures.py")
    figures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(figures)
    return figures.write_generated


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--demo", type=Path, help="a `gridscope demo` output folder (default: run one)")
    args = parser.parse_args()
    from gridscope.demo_story import demo_markdown

    with tempfile.TemporaryDirectory(prefix="gridscope-demo-") as scratch:
        folder = args.demo
        if folder is None:
            folder = Path(scratch) / "demo"
            subprocess.run([sys.executable, "-m", "gridscope", "demo", "--no-compare", "-o", str(folder)], check=True)
        text = demo_markdown(folder)
    if not text:
        print(f"{folder}: no demo cycles to describe", file=sys.stderr)
        return 2
    _write_generated()(DOC, SCRIPT, text)
    print(f"wrote {DOC.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
