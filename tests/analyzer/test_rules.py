"""`--rules scalasca|gridscope` (docs/root-causes.md, "Rules: scalasca or gridscope") on the
delay costs: each value derived by hand in specs/rc_lr_completion.spec. The pattern side of the
rules is in the golden pattern tests (`# expect@gridscope` lines of lr_ibsend.spec and
lr_unmatched.spec); the propagating class in test_golden_root_causes.py (rc_chain_barrier)."""

from __future__ import annotations

import pytest

from gridscope.analysis import names as N

US = 1e-6


def delay_rows(analysis, metric: str) -> dict[tuple[str, int], float]:
    sev = analysis.severities
    rows = sev[sev[N.METRIC].str.startswith(metric)]
    got: dict[tuple[str, int], float] = {}
    for callpath, rank, value in zip(rows[N.CALLPATH], rows[N.RANK], rows[N.VALUE]):
        got[(callpath, int(rank))] = got.get((callpath, int(rank)), 0.0) + float(value) / US
    return {k: v for k, v in got.items() if abs(v) > 1e-6}


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("rules,expected", [
    ("scalasca", {("main/MPI_Ssend", 0): 10 / 3, ("main/work", 0): 50 / 3}),
    ("gridscope", {("main/MPI_Ssend", 0): 7.5, ("main/work", 0): 12.5}),
])
def test_late_receiver_completion_time(rules, expected, jobs, make_trace, tmp_path):
    from gridscope import load
    from gridscope.analysis.driver import AnalyzeOptions, analyze

    out = tmp_path / "out"
    analyze(AnalyzeOptions(make_trace("rc_lr_completion"), out, jobs, quiet=True, rules=rules))
    analysis = load(out)
    got = delay_rows(analysis, "delay_late_sender_short")
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, rel=1e-9), key
    assert delay_rows(analysis, "delay_late_receiver_short") == pytest.approx({("main", 1): 20.0})
    assert analysis.summary["rules"] == rules
