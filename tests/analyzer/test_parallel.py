"""-j 1 (one process, no MPI) and -j 2 (mpirun, MPI transport) give the same summary."""

from __future__ import annotations

import json
import subprocess

import pytest

from analyzer_helpers import values


@pytest.fixture(scope="module")
def bench_trace(tracegen, tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "t"
    # 6 ranks on two metahosts, 200 iterations of halo exchange + Allreduce/Barrier
    subprocess.run([str(tracegen), "--bench", "6", "200", str(out)], check=True)
    return out


@pytest.mark.slow
def test_same_summary_for_one_and_two_processes(bench_trace, analyse):
    one = analyse(bench_trace, jobs=1)
    two = analyse(bench_trace, jobs=2)
    assert one["analysis"]["processes"] == 1 and two["analysis"]["processes"] == 2
    assert len(two["analysis"]["peak_rss_kb"]) == 2
    assert values(one) == values(two)
    # the synthetic run does have grid and local wait states
    assert one["patterns"]["late_sender"]["grid"] > 0
    assert one["patterns"]["late_sender"]["local"] > 0
    assert one["patterns"]["wait_at_nxn"]["grid"] > 0
    assert one["events"] > 20000


@pytest.mark.slow
def test_three_processes_on_golden_trace(make_trace, analyse):
    one = analyse(make_trace("one_to_n"), jobs=1)
    three = analyse(make_trace("one_to_n"), jobs=3)
    assert values(one) == values(three)
