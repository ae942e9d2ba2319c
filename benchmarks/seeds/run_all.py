#!/usr/bin/env python3
"""Regenerate every seed reproduction of this folder with its plot (see README.md):

    PYTHONPATH=src GRIDSCOPE_NATIVE_DIR=build/dev-native python benchmarks/seeds/run_all.py
        [--out DIR] [--quick] [--reuse]

Each script writes OUT/seedNNN/{results.json,seedNNN.png,table.md}; docs/seeds.md quotes them.
--quick runs each script's smoke mode (seconds), --reuse keeps runs already measured.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPTS = sorted(p for p in HERE.glob("seed[0-9][0-9][0-9].py"))


def main() -> None:
    for script in SCRIPTS:
        print(f"== {script.name}", flush=True)
        subprocess.run([sys.executable, str(script), *sys.argv[1:]], check=True)


if __name__ == "__main__":
    main()
