"""Golden tests of the root-cause analysis (docs/root-causes.md): delay costs, wait-state
classes and the critical path on tiny synthetic traces. Every number below is derived by
hand in the comment block of its specs/rc_*.spec, from the semantics page, not from the
engine. Values are in microseconds (1 tick = 1 us in the specs).

Checked at two levels: the Cube severities (metric x call path x rank, through
gridscope.load) and summary.json's root_causes / critical_path / wait_classes keys.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from gridscope.analysis import names as N
from gridscope.analysis.metric_tree import METRICS

US = 1e-6
# A value below this (1 ps) is rounding noise of a difference, not a cost.
NOISE_S = 1e-12
# Cube metrics of the root-cause pass: delay costs, wait-state classes, critical path.
ROOT_CAUSE_METRICS = {m.id: m for m in METRICS if m.kind in ("delay", "waitclass", "path")}
# Class key of an expected Cube row whose grid/local side docs/root-causes.md leaves open
# (long-term costs: the class of the head of the chain or of the wait finally caused):
# the test compares the sum over both classes.
EITHER = "grid+local"
WAIT_CLASSES = ("direct", "indirect", "propagating", "terminal")

CubeKey = tuple[str, str, int]             # class ("" for metrics without a grid split), call path, rank
CauseKey = tuple[str, str, str, str, str]  # callpath, metahost, kind, pattern, class (of summary.json)


@dataclass(frozen=True)
class Golden:
    cube: dict[str, dict[CubeKey, float]]                 # metric id -> rows, us; other root-cause metrics: none
    root_causes: dict[CauseKey, tuple[float, float]]      # -> (short-term, long-term), us
    critical_path: dict[tuple[str, str], float]           # (callpath, metahost) -> us
    wait_classes: dict[str, tuple[float, float]]          # class -> (grid, local), us
    cause_pairs: dict[tuple[str, str], tuple[float, float]]  # (cause, waiting metahost) -> (short, long), us
    span: float                                           # start of the run to the end of its last rank, us


GOLDEN = {
    # a. one hop: the sender's excess computation, per call path, the receiver's work subtracted
    "rc_late_sender": Golden(
        cube={"delay_late_sender_short": {("grid", "main/work", 1): 35, ("grid", "main/io", 1): 5},
              "wait_direct_late_sender": {("grid", "main/MPI_Recv", 0): 40},
              "wait_terminal_late_sender": {("grid", "main/MPI_Recv", 0): 40},
              "critical_path": {("", "main", 0): 10, ("", "main/MPI_Recv", 0): 10, ("", "main/work", 1): 75,
                                ("", "main/MPI_Send", 1): 10, ("", "main/io", 1): 5}},
        root_causes={("main/work", "B", "computation", "late_sender", "grid"): (35, 0),
                     ("main/io", "B", "computation", "late_sender", "grid"): (5, 0)},
        critical_path={("main", "A"): 10, ("main/MPI_Recv", "A"): 10, ("main/work", "B"): 75,
                       ("main/MPI_Send", "B"): 10, ("main/io", "B"): 5},
        wait_classes={"direct": (40, 0), "indirect": (0, 0), "propagating": (0, 0), "terminal": (40, 0)},
        cause_pairs={("B", "A"): (40, 0)},
        span=110),
    # b. two hops: long-term cost at rank 0's delay, direct/indirect of rank 2's wait,
    #    propagating/terminal of rank 1's wait
    "rc_chain": Golden(
        cube={"delay_late_sender_short": {("grid", "main/work", 0): 30, ("local", "main/work", 1): 22.5,
                                          ("local", "main/MPI_Recv", 1): 2.5},
              "delay_late_sender_long": {(EITHER, "main/work", 0): 15},
              "wait_direct_late_sender": {("grid", "main/MPI_Recv", 1): 30, ("local", "main/MPI_Recv", 2): 25},
              "wait_indirect_late_sender": {("local", "main/MPI_Recv", 2): 15},
              "wait_propagating_late_sender": {("grid", "main/MPI_Recv", 1): 15},
              "wait_terminal_late_sender": {("grid", "main/MPI_Recv", 1): 15, ("local", "main/MPI_Recv", 2): 40},
              "critical_path": {("", "main/work", 0): 50, ("", "main/work", 1): 25, ("", "main/MPI_Recv", 1): 5,
                                ("", "main/MPI_Recv", 2): 10, ("", "main", 2): 10}},
        root_causes={("main/work", "A", "computation", "late_sender", "grid"): (30, 15),
                     ("main/work", "B", "computation", "late_sender", "local"): (22.5, 0),
                     ("main/MPI_Recv", "B", "communication", "late_sender", "local"): (2.5, 0)},
        critical_path={("main/work", "A"): 50, ("main/work", "B"): 25, ("main/MPI_Recv", "B"): 15,
                       ("main", "B"): 10},
        wait_classes={"direct": (30, 25), "indirect": (0, 15), "propagating": (15, 0), "terminal": (15, 40)},
        cause_pairs={("A", "B"): (30, 15), ("B", "B"): (25, 0)},
        span=100),
    # b'. the same chain ending in a barrier: Cube groups the long-term cost by the wait finally
    #     caused (barrier), summary.json by the head of the chain (Late Sender). Scalasca's
    #     rules: the Late Sender caused no point-to-point wait, so it is terminal
    "rc_chain_barrier": Golden(
        cube={"delay_late_sender_short": {("grid", "main/work", 0): 30},
              "delay_barrier_short": {("local", "main/work", 1): 22.5, ("local", "main/MPI_Recv", 1): 2.5},
              "delay_barrier_long": {(EITHER, "main/work", 0): 15},
              "wait_direct_late_sender": {("grid", "main/MPI_Recv", 1): 30},
              "wait_direct_collective": {("local", "main/MPI_Barrier", 2): 25},
              "wait_indirect_collective": {("local", "main/MPI_Barrier", 2): 15},
              "wait_terminal_late_sender": {("grid", "main/MPI_Recv", 1): 30},
              "wait_terminal_collective": {("local", "main/MPI_Barrier", 2): 40},
              "critical_path": {("", "main/work", 0): 50, ("", "main/work", 1): 25, ("", "main/MPI_Recv", 1): 5,
                                ("", "main/MPI_Barrier", 2): 2, ("", "main", 2): 18}},
        root_causes={("main/work", "A", "computation", "late_sender", "grid"): (30, 15),
                     ("main/work", "B", "computation", "wait_at_barrier", "local"): (22.5, 0),
                     ("main/MPI_Recv", "B", "wan", "wait_at_barrier", "local"): (2.5, 0)},
        critical_path={("main/work", "A"): 50, ("main/work", "B"): 25, ("main/MPI_Recv", "B"): 5,
                       ("main/MPI_Barrier", "B"): 2, ("main", "B"): 18},
        wait_classes={"direct": (30, 25), "indirect": (0, 15), "propagating": (0, 0), "terminal": (30, 40)},
        cause_pairs={("A", "B"): (30, 15), ("B", "B"): (25, 0)},
        span=100),
    # c. barrier after imbalanced work, one waiting rank with scale 7/8
    "rc_barrier": Golden(
        cube={"delay_barrier_short": {("grid", "main/work", 2): 65, ("grid", "main/io", 2): 20},
              "wait_direct_collective": {("grid", "main/MPI_Barrier", 0): 20, ("grid", "main/MPI_Barrier", 1): 30,
                                         ("grid", "main/MPI_Barrier", 3): 35},
              "wait_terminal_collective": {("grid", "main/MPI_Barrier", 0): 20, ("grid", "main/MPI_Barrier", 1): 30,
                                           ("grid", "main/MPI_Barrier", 3): 35},
              "critical_path": {("", "main/work", 1): 28, ("", "main/MPI_Barrier", 1): 2, ("", "main/io", 2): 10,
                                ("", "main/work", 2): 50}},
        root_causes={("main/work", "B", "computation", "wait_at_barrier", "grid"): (65, 0),
                     ("main/io", "B", "computation", "wait_at_barrier", "grid"): (20, 0)},
        critical_path={("main/work", "A"): 28, ("main/MPI_Barrier", "A"): 2, ("main/io", "B"): 10,
                       ("main/work", "B"): 50},
        wait_classes={"direct": (85, 0), "indirect": (0, 0), "propagating": (0, 0), "terminal": (85, 0)},
        cause_pairs={("B", "A"): (50, 0), ("B", "B"): (35, 0)},
        span=90),
    # d. NxN after a WAN transfer: the transfer above the B-B minimum is a cause of kind wan
    "rc_nxn_wan": Golden(
        cube={"delay_nxn_short": {("grid", "main/MPI_Recv", 2): 75, ("grid", "main/work", 2): 5},
              "wait_direct_collective": {("grid", "main/MPI_Allreduce", 1): 30, ("grid", "main/MPI_Allreduce", 3): 50},
              "wait_terminal_collective": {("grid", "main/MPI_Allreduce", 1): 30,
                                           ("grid", "main/MPI_Allreduce", 3): 50},
              "critical_path": {("", "main", 1): 20, ("", "main/MPI_Allreduce", 1): 10, ("", "main/MPI_Recv", 2): 50,
                                ("", "main/work", 2): 10}},
        root_causes={("main/MPI_Recv", "B", "wan", "wait_at_nxn", "grid"): (60, 0),
                     ("main/MPI_Recv", "B", "communication", "wait_at_nxn", "grid"): (15, 0),
                     ("main/work", "B", "computation", "wait_at_nxn", "grid"): (5, 0)},
        critical_path={("main", "A"): 20, ("main/MPI_Allreduce", "A"): 10, ("main/MPI_Recv", "B"): 50,
                       ("main/work", "B"): 10},
        wait_classes={"direct": (80, 0), "indirect": (0, 0), "propagating": (0, 0), "terminal": (80, 0)},
        cause_pairs={("B", "A"): (30, 0), ("B", "B"): (50, 0)},
        span=90),
    # nested regions in a segment, one entered at the tick a synchronisation call is left:
    # the parents' exclusive time after it belongs to the delay and the critical path
    "rc_segments": Golden(
        cube={"delay_late_sender_short": {("local", "main/MPI_Recv", 0): 5, ("local", "main/iter/work", 0): 5,
                                          ("local", "main/iter", 0): 4, ("local", "main", 0): 6},
              "wait_direct_late_sender": {("local", "main/MPI_Recv", 1): 20},
              "wait_terminal_late_sender": {("local", "main/MPI_Recv", 1): 20},
              "critical_path": {("", "main", 0): 6, ("", "main/iter", 0): 4, ("", "main/iter/work", 0): 5,
                                ("", "main/MPI_Recv", 0): 5, ("", "main", 1): 15, ("", "main/MPI_Recv", 1): 5}},
        root_causes={("main/MPI_Recv", "A", "communication", "late_sender", "local"): (5, 0),
                     ("main/iter/work", "A", "computation", "late_sender", "local"): (5, 0),
                     ("main/iter", "A", "computation", "late_sender", "local"): (4, 0),
                     ("main", "A", "computation", "late_sender", "local"): (6, 0)},
        critical_path={("main", "A"): 21, ("main/iter", "A"): 4, ("main/iter/work", "A"): 5,
                       ("main/MPI_Recv", "A"): 10},
        wait_classes={"direct": (0, 20), "indirect": (0, 0), "propagating": (0, 0), "terminal": (0, 20)},
        cause_pairs={("A", "A"): (20, 0)},
        span=40),
    # a message without a wait state starts no synchronisation interval (as in Scalasca; were
    # every message one, main/compute @ 1 would cost 25 and MPI_Send nothing)
    "rc_sync_points": Golden(
        cube={"delay_late_sender_short": {("local", "main/compute", 1): 24.375, ("local", "main/MPI_Send", 1): 0.625},
              "wait_direct_late_sender": {("local", "main/MPI_Recv", 0): 25},
              "wait_terminal_late_sender": {("local", "main/MPI_Recv", 0): 25},
              "critical_path": {("", "main", 0): 10, ("", "main/MPI_Recv", 0): 20, ("", "main/compute", 1): 39,
                                ("", "main/MPI_Send", 1): 1}},
        root_causes={("main/compute", "A", "computation", "late_sender", "local"): (24.375, 0),
                     ("main/MPI_Send", "A", "communication", "late_sender", "local"): (0.625, 0)},
        critical_path={("main", "A"): 10, ("main/MPI_Recv", "A"): 20, ("main/compute", "A"): 39,
                       ("main/MPI_Send", "A"): 1},
        wait_classes={"direct": (0, 25), "indirect": (0, 0), "propagating": (0, 0), "terminal": (0, 25)},
        cause_pairs={("A", "A"): (25, 0)},
        span=70),
    # e. critical path of a three-rank pipeline (and its delays)
    "rc_pipeline": Golden(
        cube={"delay_late_sender_short": {("local", "main/produce", 0): 20, ("grid", "main/filter", 1): 20,
                                          ("grid", "main/MPI_Recv", 1): 5},
              "delay_late_sender_long": {(EITHER, "main/produce", 0): 20},
              "wait_direct_late_sender": {("local", "main/MPI_Recv", 1): 20, ("grid", "main/MPI_Recv", 2): 25},
              "wait_indirect_late_sender": {("grid", "main/MPI_Recv", 2): 20},
              "wait_propagating_late_sender": {("local", "main/MPI_Recv", 1): 20},
              "wait_terminal_late_sender": {("grid", "main/MPI_Recv", 2): 45},
              "critical_path": {("", "main/init", 0): 5, ("", "main/produce", 0): 20, ("", "main/MPI_Recv", 1): 5,
                                ("", "main/filter", 1): 20, ("", "main/MPI_Recv", 2): 5,
                                ("", "main/consume", 2): 30, ("", "main", 2): 5}},
        root_causes={("main/produce", "A", "computation", "late_sender", "local"): (20, 20),
                     ("main/filter", "A", "computation", "late_sender", "grid"): (20, 0),
                     ("main/MPI_Recv", "A", "communication", "late_sender", "grid"): (5, 0)},
        critical_path={("main/init", "A"): 5, ("main/produce", "A"): 20, ("main/MPI_Recv", "A"): 5,
                       ("main/filter", "A"): 20, ("main", "B"): 5, ("main/consume", "B"): 30,
                       ("main/MPI_Recv", "B"): 5},
        wait_classes={"direct": (25, 20), "indirect": (20, 0), "propagating": (0, 20), "terminal": (45, 0)},
        cause_pairs={("A", "A"): (20, 20), ("A", "B"): (25, 0)},
        span=90),
    # the other delay patterns: Late Receiver, Late Broadcast (scale 2/3), Early Reduce
    "rc_lr_bcast_reduce": Golden(
        cube={"delay_late_receiver_short": {("local", "main/work", 1): 20},
              "delay_late_broadcast_short": {("local", "main/io", 0): 20},
              "delay_early_reduce_short": {("local", "main/work", 3): 15, ("local", "main/io", 3): 15},
              "wait_direct_late_receiver": {("local", "main/MPI_Ssend", 0): 20},
              "wait_terminal_late_receiver": {("local", "main/MPI_Ssend", 0): 20},
              "wait_direct_collective": {("local", "main/MPI_Bcast", 1): 20, ("local", "main/MPI_Reduce", 2): 30},
              "wait_terminal_collective": {("local", "main/MPI_Bcast", 1): 20, ("local", "main/MPI_Reduce", 2): 30},
              "critical_path": {("", "main", 0): 25, ("", "main/MPI_Bcast", 0): 5, ("", "main/io", 0): 30,
                                ("", "main/MPI_Ssend", 0): 10, ("", "main/work", 1): 30}},
        root_causes={("main/work", "A", "computation", "late_receiver", "local"): (20, 0),
                     ("main/io", "A", "computation", "late_broadcast", "local"): (20, 0),
                     ("main/work", "B", "computation", "early_reduce", "local"): (15, 0),
                     ("main/io", "B", "computation", "early_reduce", "local"): (15, 0)},
        critical_path={("main", "A"): 25, ("main/MPI_Bcast", "A"): 5, ("main/io", "A"): 30,
                       ("main/MPI_Ssend", "A"): 10, ("main/work", "A"): 30},
        wait_classes={"direct": (0, 70), "indirect": (0, 0), "propagating": (0, 0), "terminal": (0, 70)},
        cause_pairs={("A", "A"): (40, 0), ("B", "B"): (30, 0)},
        span=100),
    # scout's intervals: an interval keeps the completion time of the call that starts it
    # (delay charged to MPI_Init and MPI_Send); the critical path covers the whole MPI_Init
    "rc_scout": Golden(
        cube={"delay_late_sender_short": {("local", "main/MPI_Init", 0): 10, ("local", "main/work", 0): 10,
                                          ("local", "main/MPI_Send", 0): 5},
              "wait_direct_late_sender": {("local", "main/MPI_Recv", 1): 25},
              "wait_terminal_late_sender": {("local", "main/MPI_Recv", 1): 25},
              "critical_path": {("", "main/work", 1): 10, ("", "main/MPI_Recv", 1): 5, ("", "main/work", 0): 35,
                                ("", "main/MPI_Send", 0): 15, ("", "main/MPI_Init", 0): 20}},
        root_causes={("main/MPI_Init", "A", "communication", "late_sender", "local"): (10, 0),
                     ("main/work", "A", "computation", "late_sender", "local"): (10, 0),
                     ("main/MPI_Send", "A", "communication", "late_sender", "local"): (5, 0)},
        critical_path={("main/work", "A"): 45, ("main/MPI_Recv", "A"): 5, ("main/MPI_Send", "A"): 15,
                       ("main/MPI_Init", "A"): 20},
        wait_classes={"direct": (0, 25), "indirect": (0, 0), "propagating": (0, 0), "terminal": (0, 25)},
        cause_pairs={("A", "A"): (25, 0)},
        span=85),
    # scout's N-to-N synchronisation: members that all overlap synchronised with each other,
    # and the next interval keeps each one's completion time
    "rc_nxn_group": Golden(
        cube={"delay_late_sender_short": {("local", "main/MPI_Allreduce", 1): 3, ("local", "main/work", 1): 17},
              "delay_nxn_short": {("local", "main/work", 2): 30},
              "wait_direct_late_sender": {("local", "main/MPI_Recv", 0): 20},
              "wait_terminal_late_sender": {("local", "main/MPI_Recv", 0): 20},
              "wait_direct_collective": {("local", "main/MPI_Allreduce", 0): 20, ("local", "main/MPI_Allreduce", 1): 10},
              "wait_terminal_collective": {("local", "main/MPI_Allreduce", 0): 20,
                                           ("local", "main/MPI_Allreduce", 1): 10},
              "critical_path": {("", "main/work", 0): 8, ("", "main/MPI_Recv", 0): 2, ("", "main/work", 1): 22,
                                ("", "main/MPI_Allreduce", 1): 8, ("", "main/work", 2): 30}},
        root_causes={("main/MPI_Allreduce", "A", "communication", "late_sender", "local"): (3, 0),
                     ("main/work", "A", "computation", "late_sender", "local"): (17, 0),
                     ("main/work", "A", "computation", "wait_at_nxn", "local"): (30, 0)},
        critical_path={("main/work", "A"): 60, ("main/MPI_Recv", "A"): 2, ("main/MPI_Allreduce", "A"): 8},
        wait_classes={"direct": (0, 50), "indirect": (0, 0), "propagating": (0, 0), "terminal": (0, 50)},
        cause_pairs={("A", "A"): (50, 0)},
        span=70),
    # scout's N-to-N synchronisation without full overlap: the waiting receivers and the latest
    # sender synchronise with each other, so a later interval between two waiters starts there
    "rc_nxn_partial": Golden(
        cube={"delay_late_sender_short": {("local", "main/MPI_Allgather", 1): 1, ("local", "main/work", 1): 19},
              "delay_nxn_short": {("local", "main/work", 3): 30},
              "wait_direct_late_sender": {("local", "main/MPI_Recv", 0): 20},
              "wait_terminal_late_sender": {("local", "main/MPI_Recv", 0): 20},
              "wait_direct_collective": {("local", "main/MPI_Allgather", 0): 20, ("local", "main/MPI_Allgather", 1): 10},
              "wait_terminal_collective": {("local", "main/MPI_Allgather", 0): 20,
                                           ("local", "main/MPI_Allgather", 1): 10},
              "critical_path": {("", "main/work", 0): 13, ("", "main/MPI_Recv", 0): 2, ("", "main/work", 1): 29,
                                ("", "main/MPI_Allgather", 1): 11, ("", "main/work", 3): 30}},
        root_causes={("main/MPI_Allgather", "A", "communication", "late_sender", "local"): (1, 0),
                     ("main/work", "A", "computation", "late_sender", "local"): (19, 0),
                     ("main/work", "A", "computation", "wait_at_nxn", "local"): (30, 0)},
        critical_path={("main/work", "A"): 72, ("main/MPI_Recv", "A"): 2, ("main/MPI_Allgather", "A"): 11},
        wait_classes={"direct": (0, 50), "indirect": (0, 0), "propagating": (0, 0), "terminal": (0, 50)},
        cause_pairs={("A", "A"): (50, 0)},
        span=85),
    # non-blocking collectives (our extension): the delayer is the latest join, at its MPI_I* call
    "rc_nbc": Golden(
        cube={"delay_nxn_short": {("local", "main/work", 0): 24},
              "wait_direct_collective": {("local", "main/MPI_Wait", 1): 15, ("local", "main/MPI_Wait", 2): 9},
              "wait_terminal_collective": {("local", "main/MPI_Wait", 1): 15, ("local", "main/MPI_Wait", 2): 9},
              "critical_path": {("", "main/work", 1): 16, ("", "main/MPI_Wait", 1): 14, ("", "main/work", 0): 30}},
        root_causes={("main/work", "A", "computation", "wait_at_nxn", "local"): (24, 0)},
        critical_path={("main/work", "A"): 46, ("main/MPI_Wait", "A"): 14},
        wait_classes={"direct": (0, 24), "indirect": (0, 0), "propagating": (0, 0), "terminal": (0, 24)},
        cause_pairs={("A", "A"): (24, 0)},
        span=60),
}


# b''. rc_chain_barrier under gridscope's rules: the Late Sender propagates into the barrier,
#      scale 1/2 (the spec's derivation)
GOLDEN["rc_chain_barrier@gridscope"] = replace(
    GOLDEN["rc_chain_barrier"],
    cube={**GOLDEN["rc_chain_barrier"].cube,
          "wait_propagating_late_sender": {("grid", "main/MPI_Recv", 1): 15},
          "wait_terminal_late_sender": {("grid", "main/MPI_Recv", 1): 15}},
    wait_classes={"direct": (30, 25), "indirect": (0, 15), "propagating": (15, 0), "terminal": (15, 40)})


def approx_us(value: float):
    return pytest.approx(value * US, rel=1e-9, abs=1e-15)


def analysed(trace: Path, out: Path, jobs: int, rules: str = N.RULES_SCALASCA):
    from gridscope import load
    from gridscope.analysis.driver import AnalyzeOptions, analyze

    analyze(AnalyzeOptions(trace, out, jobs, quiet=True, rules=rules))
    return load(out)


def spec_and_rules(case: str) -> tuple[str, str]:
    """A GOLDEN key: the spec's name, and "@gridscope" for gridscope's rules (docs/root-causes.md,
    "Rules"); Scalasca's otherwise."""
    spec, _, rules = case.partition("@")
    return spec, rules or N.RULES_SCALASCA


def descendants(metric_id: str) -> list[str]:
    """Metrics below METRIC_ID in the metric tree that are not root-cause metrics of their
    own (e.g. a derived part such as the critical-path imbalance): the Cube value of a node
    is its inclusive value over them, as Cube shows a collapsed node."""
    below = [m.id for m in METRICS if m.parent == metric_id and m.id not in ROOT_CAUSE_METRICS]
    return [d for m in below for d in (m, *descendants(m))]


def cube_rows(severities, metric_id: str) -> dict[CubeKey, float]:
    """The Cube values of one root-cause metric (inclusive over its derived parts, see
    descendants): (class, call path, rank) -> s."""
    decl = ROOT_CAUSE_METRICS[metric_id]
    names = {f"{metric_id}_{cls}": cls for cls in N.CLASSES} if decl.grid_split else {metric_id: ""}
    for part in descendants(metric_id):
        names[part] = ""
    rows = severities[severities[N.METRIC].isin(list(names))]
    got: dict[CubeKey, float] = {}
    for metric, callpath, rank, value in zip(rows[N.METRIC], rows[N.CALLPATH], rows[N.RANK], rows[N.VALUE]):
        key = (names[metric], callpath, int(rank))
        got[key] = got.get(key, 0.0) + float(value)
    return {k: v for k, v in got.items() if abs(v) > NOISE_S}


def either_class(rows: dict[CubeKey, float]) -> dict[CubeKey, float]:
    summed: dict[CubeKey, float] = {}
    for (_, callpath, rank), value in rows.items():
        summed[(EITHER, callpath, rank)] = summed.get((EITHER, callpath, rank), 0.0) + value
    return summed


def assert_rows(got: dict, expected_us: dict, what: str) -> None:
    assert set(got) == set(expected_us), f"{what}: rows {sorted(got)} != expected {sorted(expected_us)}"
    for key, value in expected_us.items():
        assert got[key] == approx_us(value), f"{what} {key}: {got[key] / US} us, expected {value} us"


def root_cause_rows(summary: dict) -> dict[CauseKey, tuple[float, float]]:
    got: dict[CauseKey, tuple[float, float]] = {}
    for row in summary["root_causes"]:
        if abs(row["short_term_s"]) <= NOISE_S and abs(row["long_term_s"]) <= NOISE_S:
            continue
        key = (row["callpath"], row["metahost"], row["kind"], row["pattern"], row["class"])
        assert key not in got, f"root_causes: two rows for {key}"
        got[key] = (row["short_term_s"], row["long_term_s"])
    return got


@pytest.fixture(scope="module")
def golden_runs(make_trace, tmp_path_factory):
    """(spec, jobs) -> gridscope.load() of its analysis; each analysed once per module."""
    runs = {}

    def run(case: str, jobs: int):
        if (case, jobs) not in runs:
            spec, rules = spec_and_rules(case)
            out = tmp_path_factory.mktemp("rc") / f"{spec}-{rules}-j{jobs}"
            runs[(case, jobs)] = analysed(make_trace(spec), out, jobs, rules)
        return runs[(case, jobs)]

    return run


SPECS_JOBS = [(spec, jobs) for spec in sorted(GOLDEN) for jobs in (1, 3)]


@pytest.mark.parametrize("spec,jobs", SPECS_JOBS)
def test_cube_root_cause_metrics(spec, jobs, golden_runs):
    """Every delay, wait-class and critical-path metric of the Cube, per call path and rank:
    the expected rows and no others."""
    analysis = golden_runs(spec, jobs)
    expected = GOLDEN[spec].cube
    assert set(expected) <= set(ROOT_CAUSE_METRICS)
    for metric_id in ROOT_CAUSE_METRICS:
        got = cube_rows(analysis.severities, metric_id)
        want = expected.get(metric_id, {})
        if any(cls == EITHER for cls, _, _ in want):
            got = either_class(got)
        assert_rows(got, want, f"{spec} -j {jobs} Cube {metric_id}")


@pytest.mark.parametrize("spec,jobs", SPECS_JOBS)
def test_summary_root_causes(spec, jobs, golden_runs):
    summary = golden_runs(spec, jobs).summary
    got = root_cause_rows(summary)
    want = GOLDEN[spec].root_causes
    assert set(got) == set(want), f"{spec}: root_causes {sorted(got)} != expected {sorted(want)}"
    for key, (short, long) in want.items():
        assert got[key][0] == approx_us(short), (spec, key, "short_term_s")
        assert got[key][1] == approx_us(long), (spec, key, "long_term_s")


@pytest.mark.parametrize("spec,jobs", SPECS_JOBS)
def test_summary_wait_classes(spec, jobs, golden_runs):
    summary = golden_runs(spec, jobs).summary
    classes = summary["wait_classes"]
    assert set(classes) == set(WAIT_CLASSES)
    for name, (grid, local) in GOLDEN[spec].wait_classes.items():
        assert classes[name][N.GRID] == approx_us(grid), (spec, name, N.GRID)
        assert classes[name][N.LOCAL] == approx_us(local), (spec, name, N.LOCAL)


@pytest.mark.parametrize("spec,jobs", SPECS_JOBS)
def test_summary_critical_path(spec, jobs, golden_runs):
    summary = golden_runs(spec, jobs).summary
    got: dict[tuple[str, str], float] = {}
    for row in summary["critical_path"]:
        if abs(row["seconds"]) > NOISE_S:
            key = (row["callpath"], row["metahost"])
            assert key not in got, f"critical_path: two rows for {key}"
            got[key] = row["seconds"]
    assert_rows(got, GOLDEN[spec].critical_path, f"{spec} critical_path")


@pytest.mark.parametrize("spec", sorted(GOLDEN))
def test_critical_path_spans_the_run(spec, golden_runs):
    """Without clock violations the covered pieces are contiguous: the path's total is the
    time from the start (every rank's first event is at 0) to the end of the last rank."""
    analysis = golden_runs(spec, 1)
    assert analysis.summary["clock_violations"] == 0
    total_cube = sum(cube_rows(analysis.severities, "critical_path").values())
    total_summary = sum(row["seconds"] for row in analysis.summary["critical_path"])
    assert total_cube == approx_us(GOLDEN[spec].span)
    assert total_summary == approx_us(GOLDEN[spec].span)


@pytest.mark.parametrize("spec,jobs", SPECS_JOBS)
def test_summary_cause_pairs(spec, jobs, golden_runs):
    """Who causes how much waiting on whom, per metahost pair: short-term costs by the waiting
    rank's metahost; long-term costs by the waiting rank of the head of the chain (as
    root_causes takes the head's pattern and class)."""
    summary = golden_runs(spec, jobs).summary
    got: dict[tuple[str, str], tuple[float, float]] = {}
    for row in summary["cause_pairs"]:
        if abs(row["short_term_s"]) > NOISE_S or abs(row["long_term_s"]) > NOISE_S:
            key = (row["cause"], row["waiting"])
            assert key not in got, f"cause_pairs: two rows for {key}"
            got[key] = (row["short_term_s"], row["long_term_s"])
    want = GOLDEN[spec].cause_pairs
    assert set(got) == set(want), f"{spec}: cause_pairs {sorted(got)} != expected {sorted(want)}"
    for key, (short, long) in want.items():
        assert got[key][0] == approx_us(short), (spec, key, "short_term_s")
        assert got[key][1] == approx_us(long), (spec, key, "long_term_s")
