#!/usr/bin/env python3
"""Screenshots of the viewer's main views for docs/viewer.md, made from a generated run (never
pasted by hand): a 48-rank run on three metahosts (`gs-tracegen synth`), analysed, viewed in
headless Chromium through tests/viewer/browser_check.mjs (mode `shots`).

    PYTHONPATH=src GRIDSCOPE_NATIVE_DIR=build/dev-native .venv/bin/python \\
        benchmarks/viewer/screenshots.py [--out docs/img] [--work /tmp/gs-shots]

Writes viewer-analysis.png (the three panes and the timeline), viewer-timeline.png (zoomed
in: names in bars, the window summaries), viewer-matrix.png (the rank matrix with axes and
legend), viewer-tools.png (a matrix cell's messages on the timeline, a collapsed metahost
as one row, the function filter) into --out. Needs node, npm's playwright-core (tests/viewer) and Debian's chromium.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CHECK_DIR = REPO / "tests" / "viewer"
URL = re.compile(r"(http://\S+/)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=REPO / "docs" / "img", help="folder for the PNG files")
    ap.add_argument("--work", type=Path, default=Path("/tmp/gs-shots"), help="scratch folder (emptied first)")
    args = ap.parse_args()
    from gridscope.native import binary

    if not (CHECK_DIR / "node_modules" / "playwright-core").is_dir():
        sys.exit(f"screenshots: {CHECK_DIR}/node_modules lacks playwright-core (make test-deps)")
    shutil.rmtree(args.work, ignore_errors=True)
    args.work.mkdir(parents=True)
    args.out.mkdir(parents=True, exist_ok=True)
    trace = args.work / "trace"
    subprocess.run([str(binary("gs-tracegen")), "synth", str(trace), "--ranks", "48", "--metahosts", "3",
                    "--iterations", "6"], check=True, capture_output=True)
    run = args.work / "run"
    subprocess.run([sys.executable, "-m", "gridscope", "analyze", str(trace), "-o", str(run), "-q"], check=True)
    view = subprocess.Popen([sys.executable, "-m", "gridscope", "view", str(run), "--no-browser", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        match = URL.search(view.stdout.readline())
        if not match:
            sys.exit(f"screenshots: gridscope view printed no URL: {view.stderr.read()}")
        proc = subprocess.run(["node", "browser_check.mjs", "shots", match.group(1), str(args.out.resolve())],
                              cwd=CHECK_DIR, capture_output=True, text=True, env=dict(os.environ))
    finally:
        view.terminate()
        view.wait()
    report = json.loads(proc.stdout or "{}")
    if proc.returncode != 0 or not report.get("ok"):
        sys.exit(f"screenshots: the browser check failed: {report.get('error') or proc.stderr[-500:]}")
    for name in report["shots"]:
        print(args.out / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
