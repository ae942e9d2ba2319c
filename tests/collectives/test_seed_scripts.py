"""benchmarks/seeds/run_all.py --quick: every seed script runs and writes its figures and
plot (the full reproductions are benchmarks, docs/seeds.md). The quick figures are checked
against what the papers' cost models say, derived by hand:

- seed 001, presto-2nic-32 (nodes of b = 2 Gb/s, NICs of b/2), 256 KiB: a pipelined binary
  tree sends to two children at b/2 each, so it needs at least 2M/b = 2.10 ms; the
  multi-lane trees move M at b and must beat it (sec. 4, Table 1).
- seed 003, lg-30-30 (WAN latency 7.8 ms), 1-byte blocks: LG crosses the WAN once, so it
  ends within two WAN latencies; vanilla (Bruck, log2 60 = 6 steps) has two steps, at
  distances 16 and 32, in which every rank sends or receives across the WAN: at least two.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from gstest import REPO, gridscope_env

pytestmark = pytest.mark.slow

WAN_LATENCY_S = 7.8e-3


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("seeds")
    subprocess.run([sys.executable, str(REPO / "benchmarks" / "seeds" / "run_all.py"),
                    "--quick", "--out", str(out)], check=True, env=gridscope_env(),
                   capture_output=True)
    return out


def test_every_seed_writes_its_plot_and_table(quick):
    for seed in ("seed001", "seed003"):
        for name in ("results.json", f"{seed}.png", "table.md"):
            assert (quick / seed / name).stat().st_size > 0, (seed, name)


def test_seed001_multilane_beats_the_binary_tree(quick):
    t = json.loads((quick / "seed001" / "results.json").read_text())["one-site"]["times_s"]
    m = str(256 << 10)
    assert t["binary"][m] >= 2 * (256 << 10) * 8 / 2e9
    assert t["multilane"][m] < t["binary"][m]


def test_seed003_lg_crosses_the_wan_once(quick):
    t = json.loads((quick / "seed003" / "results.json").read_text())["presets"]["lg-30-30"]
    assert t["lg"]["1"] < 2 * WAN_LATENCY_S
    assert t["vanilla"]["1"] >= 2 * WAN_LATENCY_S
