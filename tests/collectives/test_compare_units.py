"""Unit tests of gridscope.compare's plain logic: bounds, collbench I/O, auto's rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gridscope.compare import bounds, collbench, report, rules
from gridscope.errors import GridscopeError
from gridscope.testbed.platform import load_platform

G5K = bounds.Wan(latency_s=7.8e-3, bandwidth_Bps=136.08e6 / 8)


@pytest.mark.parametrize("op, nbytes, want", [
    ("barrier", 0, 7.8e-3),
    ("bcast", 65536, 7.8e-3 + 65536 / 17.01e6),
    ("allreduce", 1 << 20, 0.0694),
    ("gather", 1 << 20, 7.8e-3 + 16 * (1 << 20) / 17.01e6),
    ("alltoall", 1 << 20, 7.8e-3 + 32 * (1 << 20) / (4 * 17.01e6)),
])
def test_lower_bounds_match_the_issue(op, nbytes, want):
    # issue 5 quotes 11.7 ms (Bcast 64 KiB), 69.5 ms (Allreduce 1 MiB), 501 ms (Alltoall 1 MiB)
    assert bounds.lower_bound_s(op, nbytes, 32, G5K) == pytest.approx(want, rel=2e-3)


def test_issue_figures():
    assert bounds.lower_bound_s("bcast", 65536, 32, G5K) == pytest.approx(11.7e-3, abs=0.1e-3)
    assert bounds.lower_bound_s("allgather", 1 << 20, 32, G5K) * 1e3 == pytest.approx(994.0, abs=2)
    assert bounds.lower_bound_s("alltoall", 1 << 20, 32, G5K) * 1e3 == pytest.approx(501, abs=1)


def test_unknown_collective_rejected():
    with pytest.raises(ValueError):
        bounds.lower_bound_s("scan", 8, 4, G5K)


def test_wan_of_a_preset_is_its_slowest_route():
    from gridscope.testbed.platform import load_platform

    wan = bounds.wan_of(load_platform("grid5000-2"))
    assert wan.latency_s == pytest.approx(7.8e-3)
    assert wan.bandwidth_Bps == pytest.approx(136.08e6 / 8)


def test_alltoall_rows_count_the_whole_send_buffer():
    assert collbench.bench_size("alltoall", 1 << 20, 32) == 32768
    assert collbench.row_bytes("alltoall", 32768, 32) == 1 << 20
    assert collbench.bench_size("alltoall", 8, 32) == 1  # at least one byte per block
    assert collbench.row_bytes("alltoall", 1, 32) == 32
    assert collbench.bench_size("gather", 1024, 32) == 1024
    assert collbench.bench_size("barrier", 1024, 32) == 0
    # collbench measures powers of two: other sizes are rounded down
    assert collbench.bench_size("alltoall", 1024, 9) == 64
    assert collbench.row_bytes("alltoall", 64, 9) == 576
    assert collbench.bench_size("bcast", 1000, 9) == 512


def test_collbench_arguments_cover_every_row(tmp_path):
    args = collbench.arguments(["bcast", "alltoall"], [8, 1 << 20], 32, tmp_path / "o.json")
    lo, hi = int(args[args.index("--min") + 1]), int(args[args.index("--max") + 1])
    assert lo == 1 and hi == 1 << 20
    assert args[args.index("--json") + 1] == str(tmp_path / "o.json")
    # every call from a common start, far enough ahead of the barrier's release spread
    assert "--common-start" in args and float(args[args.index("--late-guard") + 1]) >= 0.5


def test_collbench_parse(tmp_path):
    """A call's time is what it adds after the last arrival, not the slowest rank's own."""
    out = tmp_path / "c.json"
    out.write_text(json.dumps({"results": [
        {"op": "bcast", "bytes": 8, "min_us": 1.0, "avg_us": 2.0, "max_us": 9000.0,
         "after_last_us": 8000.0}]}))
    timings = collbench.parse(out)
    assert collbench.lookup(timings, "bcast", 8) == pytest.approx(8e-3)
    assert collbench.lookup(timings, "bcast", 16) is None


@pytest.mark.parametrize("text", ["", "{", '{"results": [{"op": "bcast"}]}'])
def test_collbench_parse_bad_output(tmp_path, text):
    out = tmp_path / "c.json"
    out.write_text(text)
    with pytest.raises(GridscopeError, match="c.json"):
        collbench.parse(out)


def test_collbench_parse_missing_output(tmp_path):
    with pytest.raises(GridscopeError, match="no results"):
        collbench.parse(tmp_path / "none.json")


def test_rules_keep_the_faster_and_split_between_sizes():
    m = [rules.Measured("bcast", "block", 8, vanilla_s=1.0, topo_s=1.1),
         rules.Measured("bcast", "block", 1024, vanilla_s=1.0, topo_s=1.2),
         rules.Measured("bcast", "block", 65536, vanilla_s=2.0, topo_s=1.0),
         rules.Measured("bcast", "interleaved", 8, vanilla_s=2.0, topo_s=1.0)]
    table = rules.derive(m)
    assert table == [("bcast", "block", 8192, "vanilla"),  # sqrt(1024*65536)
                     ("bcast", "block", None, "default"),
                     ("bcast", "interleaved", None, "default")]
    text = rules.render(table, "test")
    assert "bcast block 8192 vanilla" in text and "bcast block inf default" in text
    assert text.startswith("# gridscope collective rules: generated")


def test_waitstate_rows_compare_modes_side_by_side():
    per_mode = {"vanilla": {"late_sender": {"grid": 2.0, "local": 0.0}},
                "topo": {"late_sender": {"grid": 0.5, "local": 1.0}}}
    rows = report.waitstate_rows(per_mode)
    assert rows == [{"pattern": "late_sender", "class": "grid", "vanilla_s": 2.0, "topo_s": 0.5},
                    {"pattern": "late_sender", "class": "local", "vanilla_s": 0.0, "topo_s": 1.0}]


def test_speedup():
    row = report.Row("bcast", 8, "block", 2.0, 0.5, None, 0.4)
    assert report.speedup(row) == 4.0
    assert report.speedup(report.Row("bcast", 8, "block", None, 0.5, None, None)) is None


# ------------------------------------------------ bounds over any number of metahosts

ASYM3 = Path(__file__).resolve().parents[2] / "benchmarks" / "collectives" / "asym-3.toml"
MIB = 1 << 20


@pytest.mark.parametrize("op", bounds.OPS)
@pytest.mark.parametrize("nbytes", [8, 1024, 65536, MIB])
def test_multisite_bound_is_the_two_site_bound_on_two_equal_sites(op, nbytes):
    plat = load_platform("grid5000-2")
    two = bounds.lower_bound_s(op, nbytes, 32, bounds.wan_of(plat))
    assert bounds.multisite_bound_s(op, nbytes, plat, [16, 16]) == pytest.approx(two, rel=1e-9)


def test_bcast_bound_counts_relays_through_the_third_site():
    # grid5000-3: every pair L = 7.8 ms, W = 136.08 Mb/s. A site can receive from the root
    # directly (from L on) and through the third site (from 2L on), both at W:
    # b = W (T - L) + W (T - 2L)  =>  T = (b / W + 3L) / 2, well below L + b / W.
    lat, w = 7.8e-3, 136.08e6 / 8
    got = bounds.multisite_bound_s("bcast", MIB, load_platform("grid5000-3"), [22, 21, 21])
    assert got == pytest.approx((MIB / w + 3 * lat) / 2, rel=1e-9)
    assert got < lat + MIB / w


def test_barrier_bound_takes_the_fastest_wan_path():
    # asym-3: Nancy -> Sophia is 20 ms direct but 4 + 12 ms through Lyon
    got = bounds.multisite_bound_s("barrier", 0, load_platform(ASYM3), [22, 21, 21])
    assert got == pytest.approx(16e-3, rel=1e-9)


def test_reduce_bound_waits_for_the_slowest_sender():
    # asym-3, root in Lyon: Sophia's 1 MiB leaves over Sophia -> Lyon (12.5 MB/s, arrives
    # from 12 ms) and Sophia -> Nancy (37.5 MB/s, then 4 ms to Lyon: from 24 ms):
    # 12.5e6 (T - 0.012) + 37.5e6 (T - 0.024) = MIB  =>  T = (MIB + 1.05e6) / 50e6
    got = bounds.multisite_bound_s("reduce", MIB, load_platform(ASYM3), [22, 21, 21])
    assert got == pytest.approx((MIB + 0.15e6 + 0.9e6) / 50e6, rel=1e-9)


def test_allreduce_bound_reduces_on_the_way_only_after_two_hops():
    # grid5000-3: combining two partials in a relay takes 2L = 15.6 ms before it can reach
    # the third site; sooner, every site needs both raw partials, one over each link:
    # L + 2 b / (2 W)
    lat, w = 7.8e-3, 136.08e6 / 8
    got = bounds.multisite_bound_s("allreduce", 65536, load_platform("grid5000-3"), [22, 21, 21])
    assert got == pytest.approx(lat + 65536 / w, rel=1e-9)
    # with long vectors the relay pays off for the elements that arrive after 2L: both links
    # carry 2W (T - 2L) combined and 2W (T - L) in all, so 2b - 2W (T - 2L) = 2W (T - L)
    b = 64 * MIB
    got = bounds.multisite_bound_s("allreduce", b, load_platform("grid5000-3"), [22, 21, 21])
    assert got == pytest.approx((b / w + 3 * lat) / 2, rel=1e-6)


def test_allreduce_bound_on_asym3_splits_raw_and_combined():
    # Sophia: Lyon's link (12.5 MB/s from 12 ms) can bring combined elements from 16 ms on
    # (Nancy -> Lyon -> Sophia); Nancy's (37.5 MB/s, from 20 ms) is too late to help before
    # T. The rest need Lyon's and Nancy's raw partials, two units: with x = 12.5e6 (T - 16e-3)
    # combined, 2b - x <= 12.5e6 (T - 12e-3): T = (2b + 0.35e6) / 25e6 (below 20 ms)
    b = 65536
    got = bounds.multisite_bound_s("allreduce", b, load_platform(ASYM3), [22, 21, 21])
    assert got == pytest.approx((2 * b + 0.35e6) / 25e6, rel=1e-6)


def test_allgather_bound_counts_every_nodes_own_link():
    # asym-3, 128 ranks: a Sophia node (one core, 500 Mb/s) takes in the 127 blocks of the
    # other ranks through its link, more than the WAN links' share (130.72 ms)
    got = bounds.multisite_bound_s("allgather", 65536, load_platform(ASYM3), [43, 43, 42])
    assert got == pytest.approx(127 * 65536 / 62.5e6, rel=1e-9)


def test_allgather_bound_waits_for_each_sources_bytes_at_the_relay():
    # asym-3, 64 ranks, 1 KiB: Nancy's 21 blocks can reach Sophia through Lyon's 100 Mb/s link
    # only from 4 + 12 ms on (its own link opens at 20 ms), not from 12 ms as Lyon's do
    got = bounds.multisite_bound_s("allgather", 1024, load_platform(ASYM3), [22, 21, 21])
    assert got == pytest.approx(16e-3 + 21 * 1024 / 12.5e6, rel=1e-9)


def test_gather_bound_counts_the_roots_node_link():
    # grid5000-2 with a fast WAN: the root's node (2 cores, 894.39 Mb/s) takes in the other
    # 30 ranks' blocks; those from its own site from the start, the rest after the WAN latency
    plat = load_platform("grid5000-2")
    from dataclasses import replace
    fast = replace(plat, routes=tuple(replace(r, bandwidth=1e12) for r in plat.routes))
    bw = 894.39e6 / 8
    got = bounds.multisite_bound_s("gather", MIB, fast, [16, 16])
    assert got == pytest.approx(max(30 * MIB / bw, 7.8e-3 + 16 * MIB / bw), rel=1e-9)


def test_multisite_bound_needs_two_populated_metahosts():
    assert bounds.multisite_bound_s("bcast", MIB, load_platform("grid5000-3"), [8, 0, 0]) == 0.0
