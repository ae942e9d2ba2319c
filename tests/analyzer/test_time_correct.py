"""--time-correct (controlled logical clock, docs/analyzer.md "Clocks"): exact corrected
severities on tiny traces (specs/clc_*.spec derive every number), and the same result for
any -j."""

from __future__ import annotations

import random
import subprocess

import pytest

from analyzer_helpers import values

US = 1e-6


def patterns(summary: dict) -> dict:
    return {p: v for p, v in summary["patterns"].items() if v["grid"] or v["local"]}


def approx(grid: float, local: float) -> dict:
    return {"grid": pytest.approx(grid, rel=1e-9, abs=1e-15), "local": pytest.approx(local, rel=1e-9, abs=1e-15)}


def test_p2p_violation_backward_amortisation_in_late_sender(make_trace, analyse):
    plain = analyse(make_trace("clc_p2p"))
    assert plain["clock_violations"] == 1
    assert patterns(plain) == {"late_sender": approx(0.0, 20 * US)}
    # about the backward amortisation: the spec derives its numbers with a 3 us latency between nodes
    fixed = analyse(make_trace("clc_p2p"), time_correct=True, latency_host_s=3 * US)
    assert fixed["clock_violations"] == 0
    # the earlier receive's region moved from 10 to 16 (ramp before the jump): 4 + 14 us
    assert patterns(fixed) == {"late_sender": approx(0.0, 18 * US)}
    tc = fixed["time_correction"]
    assert tc["corrected_receives"] == 1 and tc["corrected_collectives"] == 0
    assert tc["rounds"] == 2 and tc["converged"] is True
    assert tc["max_shift_s"] == pytest.approx(33 * US)
    assert tc["latency_grid_s"] is None
    assert tc["latencies"] == [
        {"metahosts": ["A", "A"], "class": "node", "latency_s": pytest.approx(5 * US), "source": "trace",
         "observed_min_s": pytest.approx(5 * US)},
        {"metahosts": ["A", "A"], "class": "host", "latency_s": pytest.approx(3 * US), "source": "option",
         "observed_min_s": None}]


def test_barrier_violation_is_corrected(make_trace, analyse):
    plain = analyse(make_trace("clc_barrier"))
    assert plain["clock_violations"] == 1  # rank 0 leaves the barrier before rank 2 enters it
    assert patterns(plain) == {"wait_at_barrier": approx(0.0, 40 * US),
                               "barrier_completion": approx(0.0, 13 * US),
                               "late_sender": approx(0.0, 10 * US)}
    # minimum latencies from the trace: 10 us within node a1, the floor (1 tick) between A's nodes
    fixed = analyse(make_trace("clc_barrier"), time_correct=True)
    assert fixed["clock_violations"] == 0
    assert patterns(fixed) == {"wait_at_barrier": approx(0.0, 50 * US),
                               "barrier_completion": approx(0.0, 16 * US),
                               "late_sender": approx(0.0, 15 * US)}
    tc = fixed["time_correction"]
    assert tc["corrected_collectives"] == 1 and tc["corrected_receives"] == 1
    assert tc["rounds"] == 3  # the barrier exit moves rank 0's send, which moves rank 1's receive
    assert tc["max_shift_s"] == pytest.approx(11 * US)
    assert [(x["class"], x["latency_s"], x["source"]) for x in tc["latencies"]] == [
        ("node", pytest.approx(10 * US), "trace"), ("host", pytest.approx(1 * US), "floor")]
    fixed_latencies = analyse(make_trace("clc_barrier"), time_correct=True, latency_node_s=1 * US,
                              latency_host_s=3 * US)
    assert patterns(fixed_latencies) == {"wait_at_barrier": approx(0.0, 50 * US),
                                         "barrier_completion": approx(0.0, 9 * US),
                                         "late_sender": approx(0.0, 21 * US)}
    assert fixed_latencies["time_correction"]["max_shift_s"] == pytest.approx(13 * US)


def grid_latency(summary: dict) -> tuple:
    (link,) = [x for x in summary["time_correction"]["latencies"] if x["class"] == "grid"]
    return link["latency_s"], link["source"]


def test_violation_across_metahosts_uses_the_grid_latency(make_trace, analyse):
    plain = analyse(make_trace("clc_grid"))
    assert plain["clock_violations"] == 1
    assert patterns(plain) == {"late_sender": approx(65 * US, 0.0)}
    learned = analyse(make_trace("clc_grid"), time_correct=True)  # the other message took 45 us
    assert grid_latency(learned) == (pytest.approx(45 * US), "trace")
    assert patterns(learned) == {"late_sender": approx(22 * US, 0.0)}
    assert learned["time_correction"]["max_shift_s"] == pytest.approx(50 * US)
    fixed = analyse(make_trace("clc_grid"), time_correct=True, latency_grid_s=30 * US)
    assert fixed["time_correction"]["latency_grid_s"] == pytest.approx(30 * US)
    assert grid_latency(fixed) == (pytest.approx(30 * US), "option")
    assert patterns(fixed) == {"late_sender": approx(37 * US, 0.0)}
    assert fixed["time_correction"]["max_shift_s"] == pytest.approx(35 * US)
    faster = analyse(make_trace("clc_grid"), time_correct=True, latency_grid_s=10 * US)
    assert faster["time_correction"]["latency_grid_s"] == pytest.approx(10 * US)
    assert patterns(faster) == {"late_sender": approx(57 * US, 0.0)}
    assert faster["time_correction"]["max_shift_s"] == pytest.approx(15 * US)
    assert learned["clock_violations"] == fixed["clock_violations"] == faster["clock_violations"] == 0


def test_chain_of_corrections(make_trace, analyse):
    """specs/violation.spec: rank 1's corrected receive moves its later send, which then
    forces rank 0's receive forward as well (three rounds); rank 0's receive region is
    stretched back to its send at 30 by the backward amortisation. The A-B latency is the
    other message's transfer time, 40 us."""
    fixed = analyse(make_trace("violation"), time_correct=True)
    assert fixed["clock_violations"] == 0
    tc = fixed["time_correction"]
    assert (tc["corrected_receives"], tc["rounds"]) == (2, 3)
    assert grid_latency(fixed) == (pytest.approx(40 * US), "trace")
    # rank 1: receive 10..15 -> 10..70 (20 us waiting for the send at 30); its send 20 -> 75.
    # rank 0: receive 40..60 -> 58..115 (ramp from 30: 40 + floor(55 * 10 / 30)): 75 - 58 = 17 us
    assert patterns(fixed) == {"late_sender": approx(37 * US, 0.0)}
    assert tc["max_shift_s"] == pytest.approx(55 * US)


def without_correction(summary: dict) -> dict:
    """Everything the analysis found, without the correction's own report and timing."""
    return {k: v for k, v in values(summary).items() if k != "time_correction"}


def test_latencies_from_the_trace_leave_a_consistent_trace_alone(make_trace, analyse):
    """specs/clc_learned.spec: metahosts A and B exchange messages in ~3.5 us (two nodes of
    one cluster). The learned latencies move nothing: every result equals the uncorrected
    one. The old fixed 30 us between metahosts moved all three receives."""
    plain = analyse(make_trace("clc_learned"))
    assert plain["clock_violations"] == 0
    assert patterns(plain) == {"late_sender": approx(13 * US, 5 * US), "wait_at_barrier": approx(3 * US, 0.0)}
    fixed = analyse(make_trace("clc_learned"), time_correct=True)
    assert without_correction(fixed) == without_correction(plain)
    tc = fixed["time_correction"]
    assert (tc["corrected_receives"], tc["corrected_collectives"], tc["max_shift_s"], tc["rounds"]) == (0, 0, 0, 1)
    assert tc["latencies"] == [
        {"metahosts": ["A", "A"], "class": "node", "latency_s": pytest.approx(0.4 * US), "source": "trace",
         "observed_min_s": pytest.approx(0.4 * US)},
        {"metahosts": ["A", "B"], "class": "grid", "latency_s": pytest.approx(3.5 * US), "source": "trace",
         "observed_min_s": pytest.approx(3.5 * US)}]
    forced = analyse(make_trace("clc_learned"), time_correct=True, latency_grid_s=30 * US)
    assert forced["time_correction"]["corrected_receives"] == 3
    assert grid_latency(forced) == (pytest.approx(30 * US), "option")
    assert patterns(forced) != patterns(plain)


def test_real_violation_is_corrected_with_the_learned_latency(make_trace, analyse):
    """specs/clc_learned_violation.spec (derives the numbers): one message is received 1 us
    before it was sent; the A-B latency from the other three messages is 3.5 us."""
    plain = analyse(make_trace("clc_learned_violation"))
    assert plain["clock_violations"] == 1
    assert patterns(plain) == {"late_sender": approx(20 * US, 0.0)}
    fixed = analyse(make_trace("clc_learned_violation"), time_correct=True)
    assert fixed["clock_violations"] == 0
    assert patterns(fixed) == {"late_sender": approx(21.772 * US, 0.0)}
    tc = fixed["time_correction"]
    assert (tc["corrected_receives"], tc["corrected_collectives"], tc["rounds"]) == (2, 0, 3)
    assert tc["max_shift_s"] == pytest.approx(4.5 * US)
    assert tc["latencies"] == [
        {"metahosts": ["A", "B"], "class": "grid", "latency_s": pytest.approx(3.5 * US), "source": "trace",
         "observed_min_s": pytest.approx(3.5 * US)}]


@pytest.mark.parametrize("jobs,speculation", [(2, None), (3, None), (2, "0"), (3, "0")])
def test_learned_latencies_same_for_any_number_of_processes(make_trace, analyse, monkeypatch, jobs, speculation):
    """The per-pair minima are global (reduced over the engine processes), also when process
    0 replays the forward step for all ranks (GRIDSCOPE_CLC_SPECULATIVE_ROUNDS=0)."""
    for name in ("clc_learned", "clc_learned_violation", "clc_barrier", "clc_grid"):
        one = analyse(make_trace(name), jobs=1, time_correct=True)
        if speculation is not None:
            monkeypatch.setenv("GRIDSCOPE_CLC_SPECULATIVE_ROUNDS", speculation)
        many = analyse(make_trace(name), jobs=jobs, time_correct=True)
        monkeypatch.delenv("GRIDSCOPE_CLC_SPECULATIVE_ROUNDS", raising=False)
        assert many["analysis"]["processes"] == jobs
        assert values(one) == values(many), name


def random_spec(seed: int) -> str:
    """6 ranks on 2 metahosts with clocks off by up to +-40 us: ring messages, Barrier,
    Bcast, Reduce and Allreduce every iteration."""
    rng = random.Random(seed)
    hosts = [("A", "a1"), ("A", "a1"), ("A", "a2"), ("B", "b1"), ("B", "b1"), ("B", "b2")]
    off = [rng.randint(-40, 40) for _ in hosts]
    lines = [f"rank {r} {h} {n}" for r, (h, n) in enumerate(hosts)]
    lines += [f"{r} 0 enter main" for r in range(6)]
    t0 = 100
    for it in range(30):
        root = it % 6
        for r in range(6):
            s = t0 + off[r] + rng.randint(0, 20)
            lines += [f"{r} {s} {s + 2} send MPI_Send {(r + 1) % 6} {it} 8",
                      f"{r} {s + 5} {s + 25} recv MPI_Recv {(r + 5) % 6} {it} 8",
                      f"{r} {s + 80} {s + 140} coll MPI_Barrier MPI_COMM_WORLD -1 0 0",
                      f"{r} {s + 150} {s + 200} coll MPI_Bcast MPI_COMM_WORLD {root} "
                      f"{8 if r == root else 0} {0 if r == root else 8}",
                      f"{r} {s + 210} {s + 260} coll MPI_Reduce MPI_COMM_WORLD {root} 8 {48 if r == root else 0}",
                      f"{r} {s + 270} {s + 330} coll MPI_Allreduce MPI_COMM_WORLD -1 8 8"]
        t0 += 450
    lines += [f"{r} {t0 + 200} leave" for r in range(6)]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def skewed_trace(tracegen, tmp_path_factory):
    d = tmp_path_factory.mktemp("skewed")
    (d / "skewed.spec").write_text(random_spec(4))
    subprocess.run([str(tracegen), str(d / "skewed.spec"), str(d / "t")], check=True)
    return d / "t"


def test_skewed_clocks_are_fully_corrected(skewed_trace, analyse):
    plain = analyse(skewed_trace)
    assert plain["clock_violations"] > 0
    fixed = analyse(skewed_trace, time_correct=True)
    assert fixed["clock_violations"] == 0
    tc = fixed["time_correction"]
    assert tc["converged"] is True
    assert tc["corrected_receives"] > 0 and tc["corrected_collectives"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("jobs", [2, 3])
def test_same_correction_for_any_number_of_processes(skewed_trace, make_trace, analyse, jobs):
    for trace in (skewed_trace, make_trace("clc_barrier")):
        one = analyse(trace, jobs=1, time_correct=True)
        many = analyse(trace, jobs=jobs, time_correct=True)
        assert many["analysis"]["processes"] == jobs
        assert values(one) == values(many)


@pytest.fixture(scope="module")
def bench_trace(tracegen, tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "t"
    subprocess.run([str(tracegen), "--bench", "6", "200", str(out)], check=True)
    return out


@pytest.mark.slow
def test_long_chain_of_corrections_same_for_any_number_of_processes(bench_trace, analyse):
    """The synthetic benchmark's messages take 50 ns within a node and 800 ns between
    metahosts, less than the fixed minimum latencies given here (Scalasca's 1 us and 3 us, 30
    us between metahosts): every message is corrected and the corrections cascade through the
    whole run (under -j 2 the speculation does not settle and process 0 replays the forward
    step for all ranks). (With latencies from the trace only the messages faster than the
    floors move, and the chains stay short.)"""
    fixed = {"latency_node_s": 1 * US, "latency_host_s": 3 * US, "latency_grid_s": 30 * US}
    one = analyse(bench_trace, jobs=1, time_correct=True, **fixed)
    two = analyse(bench_trace, jobs=2, time_correct=True, **fixed)
    assert values(one) == values(two)
    tc = one["time_correction"]
    assert tc["converged"] is True and one["clock_violations"] == 0
    assert tc["rounds"] > 100  # far more than speculation tries before it blocks


@pytest.mark.slow
def test_real_single_node_run_moves_events_no_further_than_its_violations(tmp_path):
    """Issue 25: a real 4-rank run on one node has one clock, so nothing may move by more than
    the largest violation plus the minimum latency. testdata/apps/metatrace (halo exchanges,
    Allreduce, Barrier, Bcast), recorded with `gridscope record -- mpirun -np 4`. Before the
    fix such a run (no violation at all) had 37 receives and 129 collective ends moved by up
    to 3 ms: the node latency learned from the fastest message (85 us on this oversubscribed
    machine) was demanded of every collective, and each fast one pushed the next."""
    import json
    import shutil
    from pathlib import Path

    from analyzer_helpers import gridscope

    if shutil.which("mpicc") is None:
        pytest.fail("mpicc is missing (make install installs the MPI packages)")
    apps = Path(__file__).resolve().parents[2] / "testdata" / "apps"
    exe = tmp_path / "metatrace"
    subprocess.run(["mpicc", "-O1", "-I", str(apps / "common"), "-o", str(exe), str(apps / "metatrace" / "metatrace.c"),
                    "-lm"], check=True)
    rec = gridscope("record", "-o", tmp_path / "trace", "--", "mpirun", "-np", "4", "--oversubscribe", exe,
                    "--steps", "4", "--scale", "0.01")
    assert rec.returncode == 0, rec.stderr
    out = tmp_path / "out"
    ana = gridscope("analyze", tmp_path / "trace", "-o", out, "--time-correct")
    assert ana.returncode == 0, ana.stderr
    s = json.loads((out / "summary.json").read_text())
    assert s["messages"] > 0 and s["collectives"] > 0
    tc = s["time_correction"]
    assert tc["one_clock"] is True  # every rank on this one node
    # (0 when a collective completed within one clock tick of its last begin)
    assert tc["collective_min_transfer_s"] is not None and tc["collective_min_transfer_s"] >= 0
    latency = max(x["latency_s"] for x in tc["latencies"])
    print(f"\nmoved: {tc['corrected_receives']} receives, {tc['corrected_collectives']} collective ends, "
          f"max {tc['max_shift_s'] * 1e6:.3g} us; largest violation {tc['largest_violation_s'] * 1e6:.3g} us, "
          f"latency {latency * 1e6:.3g} us")
    assert tc["max_shift_s"] <= tc["largest_violation_s"] + latency + 1e-9
    assert "largest violation" in " ".join(ana.stdout.split())

