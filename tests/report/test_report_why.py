"""The report's "Why: root causes" section on three hand-built cycles: the coupling imbalance
(rank 2 on FH-BRS works 6, 5.5, 5 s while FZJ's ranks work 4 and 5 s) shrinks, the WAN cause
(0.5 s) stays."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from synthetic_engine import analysis_folder

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "diff"))
from test_diff_root_causes import HOSTS, run  # noqa: E402


@pytest.fixture(scope="module")
def cycles(tmp_path_factory):
    root = tmp_path_factory.mktemp("why")
    trace = root / "traces.otf2"
    trace.write_text("")
    folders = []
    for i, work in enumerate((6.0, 5.5, 5.0)):
        analysis_folder(root / f"cycle{i}", str(trace), HOSTS, [run(work)])
        folders.append(root / f"cycle{i}")
    return folders


def section(html: str, sid: str) -> str:
    start = html.index(f'<section id="{sid}">')
    return html[start:html.index("</section>", start)]


def text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html.replace("<wbr>", "")).split())


def test_why_section_names_the_main_cause_and_follows_it(cycles, tmp_path):
    from gridscope.report import write_report

    out, _ = write_report(cycles, tmp_path / "r.html")
    html = out.read_text()
    why = section(html, "why")
    assert '<a href="#why">' in html
    assert why.count("<img") == 1 and 'src="data:image/svg+xml;base64,' in why
    words = text(why)
    assert "1.000 s of the waiting at FZJ caused by computation in main/work on FH-BRS; 0.500 s by WAN transfer" in words
    # top causes of the latest cycle, then the critical path (5.5 s: work 5 s, imbalance 5 - 14/3)
    assert "computation main/work FH-BRS Wait at Barrier grid 1.000 0.000 1.000" in words
    assert "main/work FH-BRS 5.000 90.9 % 0.333" in words
    # the first cycle's largest cause across the cycles: 3 -> 2 -> 1 s
    assert "computation in main/work FH-BRS 3.000 2.000 1.000" in words
    assert "all delay costs 3.500 2.500 1.500" in words
    summary = text(section(html, "summary"))
    assert "Late rank: rank 2 on FH-BRS in main/work" in summary


def test_diff_section_lists_the_change_of_the_delay_costs(cycles, tmp_path):
    from gridscope.report import write_report

    out, _ = write_report(cycles[::2], tmp_path / "r.html")
    words = text(section(out.read_text(), "diffs"))
    assert "Changes of the delay costs" in words
    assert "computation main/work FH-BRS Wait at Barrier grid -2.000" in words


def test_runs_without_root_causes_say_so(tmp_path):
    from gridscope.report import write_report

    trace = tmp_path / "traces.otf2"
    trace.write_text("")
    process = run(6.0)
    process.severities = [r for r in process.severities if not r[0].startswith(("delay", "critical"))]
    analysis_folder(tmp_path / "off", str(trace), HOSTS, [process], root_causes=False)
    out, _ = write_report([tmp_path / "off"], tmp_path / "r.html")
    assert "Root causes not analysed (--no-root-causes)." in text(section(out.read_text(), "why"))


def test_pair_kinds_and_followed_causes():
    from gridscope.report.why_data import followed, pair_kinds

    def summary(seconds):
        return {"root_cause_analysis": {"enabled": True}, "root_causes": [
            {"callpath": "w", "metahost": "B", "kind": "computation", "pattern": "wait_at_barrier", "class": "grid",
             "total_s": seconds, "waiting_s": {"A": seconds}},
            {"callpath": "r", "metahost": "B", "kind": "wan", "pattern": "late_sender", "class": "grid",
             "total_s": 0.5, "waiting_s": {"A": 0.25, "B": 0.25}}]}

    assert pair_kinds(summary(2.0)) == [
        {"cause": "B", "waiting": "A", "computation": 2.0, "communication": 0.0, "wan": 0.25, "total": 2.25},
        {"cause": "B", "waiting": "B", "computation": 0.0, "communication": 0.0, "wan": 0.25, "total": 0.25}]
    table = followed([("c0", summary(2.0)), ("c1", summary(1.0))])
    assert [(r["callpath"], r["values"]) for r in table["rows"]] == [("w", [2.0, 1.0]), ("r", [0.5, 0.5])]
    assert table["totals"] == [2.5, 1.5]
    # the waiting caused across metahosts: B -> A (2 + 0.25, then 1 + 0.25); B -> B does not count
    assert table["across"] == [2.25, 1.25]
    assert (table["top_pair"]["cause"], table["top_pair"]["waiting"]) == ("B", "A")
    assert followed([("c0", summary(2.0)), ("old", {})]) is None  # a run from before root causes
