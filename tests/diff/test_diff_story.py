"""What `diff` says changed: the duration, where the critical path runs and how it moved, and
the findings that appeared, vanished, moved or changed (gridscope.diff.story); and call paths
in its tables never split inside a region name, whatever the console's width."""

from __future__ import annotations

import io
import re

import pytest

from gridscope.diff.story import change_story, story_lines


def finding(role, callpath, ranks, cost, metahost="A", link=None):
    return {"cause": {"kind": "computation", "role": role, "callpath": callpath, "metahost": metahost,
                      "ranks": ranks, "link": link}, "cost_s": cost, "share": cost / 100}


def summary(duration, path, findings):
    return {"duration_s": duration, "findings": findings,
            "critical_path": [{"callpath": cp, "metahost": mh, "seconds": s, "imbalance_s": 0.0} for cp, mh, s in path]}


BASE = summary(4.0, [("main/cg", "FH-BRS", 3.0), ("main/transport", "FZJ", 1.0)],
               [finding("site", "main/cg", [0, 1], 10.0, "FH-BRS"), finding("rank", "main/io", [3], 2.0),
                finding("rank", "main/solve", [5], 1.0)])
NEW = summary(3.0, [("main/transport", "FZJ", 2.0), ("main/cg", "FH-BRS", 1.0)],
              [finding("site", "main/cg", [0, 1], 4.0, "FH-BRS"), finding("rank", "main/solve", [6], 1.5),
               finding("site", "main/transport", [2, 3], 5.0, "FZJ")])


def test_path_moved_and_findings_matched_by_culprit():
    story = change_story(BASE, NEW)
    assert story["duration"] == "Run duration 4.00 s → 3.00 s (-25.0 %)."
    assert story["critical_path"] == ("The critical path moved from main/cg on FH-BRS (75.0 % of it) to "
                                      "main/transport on FZJ (66.7 % of it).")
    changes = {c["change"]: c["text"] for c in story["findings"]}
    assert set(changes) == {"changed", "appeared", "moved", "vanished"}
    assert changes["changed"].startswith("changed: Slow site: FH-BRS (ranks 0-1) in main/cg")
    assert "(waiting caused before: 10.0 s)" in changes["changed"]
    assert changes["appeared"].startswith("appeared: Slow site: FZJ (ranks 2-3) in main/transport")
    assert changes["moved"].startswith("moved: Late rank: rank 5 on A in main/solve") and "now Late rank: rank 6" in changes["moved"]
    assert changes["vanished"].startswith("vanished: Late rank: rank 3 on A in main/io")
    # largest cost first
    assert [c["change"] for c in story["findings"]] == ["changed", "appeared", "vanished", "moved"]


def test_path_stays_and_no_findings():
    story = change_story(summary(2.0, [("main/x", "A", 1.0)], []), summary(1.0, [("main/x", "A", 1.0)], []))
    assert story["critical_path"] == "The critical path stays in main/x on A (100.0 % → 100.0 % of it)."
    assert story_lines(story)[-1] == "  no finding in either run"


@pytest.mark.parametrize("width", [40, 60, 100])
def test_tables_never_split_a_region_name(width):
    from rich.console import Console

    from gridscope.diff.table import print_root_cause_changes

    long = "application/timestep_loop/conjugate_gradient_iteration/halo_exchange_with_neighbours/MPI_Waitall"
    result = {"root_causes": [{"kind": "communication", "callpath": long, "metahost": "FH-BRS",
                               "pattern": "late_sender", "class": "grid", "total_s": -1.5, "short_term_s": -1.0,
                               "long_term_s": -0.5, "percent_of_base": -2.0}],
              "critical_path": [{"callpath": long, "metahost": "FH-BRS", "seconds": -0.5, "imbalance_s": 0.0}]}
    out = io.StringIO()
    print_root_cause_changes(result, Console(file=out, width=width, force_terminal=False), top=5)
    text = out.getvalue()
    cells = re.sub(r"[│┃|]", " ", text)
    for name in long.split("/"):
        assert re.search(rf"(^|[/\s]){name}($|[/\s])", cells, flags=re.M), (name, text)
    if width < 100:  # a list: the figures are labelled
        assert "Δ s -1.500" in text and "% of BASE -2.0 %" in text
