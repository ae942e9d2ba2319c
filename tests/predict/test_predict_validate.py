"""The errors the validation reports (gridscope.predict.validate), on hand-made summaries."""

from __future__ import annotations

import math

from gridscope.predict.validate import compare


def _summary(total: float, patterns: dict[str, tuple[float, float]]) -> dict:
    return {"total_time_s": total,
            "patterns": {n: {"grid": g, "local": loc} for n, (g, loc) in patterns.items()}}


def test_top_wait_states_with_their_parts():
    rec = _summary(100.0, {"late_sender": (4.0, 6.0), "wait_at_barrier": (0.0, 20.0),
                           "wait_at_nxn": (1.0, 0.0), "late_receiver": (0.5, 0.0)})
    pred = _summary(101.0, {"late_sender": (5.0, 6.0), "wait_at_barrier": (0.0, 19.0),
                            "wait_at_nxn": (0.0, 0.0), "late_receiver": (9.0, 0.0)})
    rows = compare(rec, pred, parts=True)
    got = [(r.what, r.recorded_s, r.predicted_s) for r in rows]
    assert got == [("total_time", 100.0, 101.0),
                   ("wait_at_barrier", 20.0, 19.0), ("wait_at_barrier (local)", 20.0, 19.0),
                   ("late_sender", 10.0, 11.0), ("late_sender (grid)", 4.0, 5.0),
                   ("late_sender (local)", 6.0, 6.0),
                   ("wait_at_nxn", 1.0, 0.0), ("wait_at_nxn (grid)", 1.0, 0.0)]
    assert [round(r.error, 4) for r in rows] == [0.01, 0.05, 0.05, 0.1, 0.25, 0.0, 1.0, 1.0]
    assert len(compare(rec, pred)) == 4  # without parts: total and the top 3


def test_a_wait_state_the_recording_lacks_is_not_a_zero_error():
    rec = _summary(10.0, {"late_sender": (0.0, 2.0)})
    pred = _summary(10.0, {"late_sender": (0.5, 2.0)})
    rows = {r.what: r for r in compare(rec, pred, parts=True)}
    assert math.isinf(rows["late_sender (grid)"].error)
    assert rows["late_sender (local)"].error == 0.0
