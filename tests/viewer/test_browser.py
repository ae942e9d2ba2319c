"""Browser tests (Playwright through node): highlight a pattern, screenshot, XSS.

Needs node + npm (the npm project is tests/viewer/package.json; `npm ci` runs here when
node_modules is missing) and Debian's chromium at /usr/bin/chromium (Makefile test-deps).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from viewer_fixtures import XSS_NAME
from test_cli_view import start_view
from gridscope.analysis.waitstates import read_waitstates

HERE = Path(__file__).resolve().parent
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
SCREENSHOT_DIR = Path(os.environ.get("GRIDSCOPE_SCREENSHOTS", HERE.parents[1] / "build" / "screenshots"))


@pytest.fixture(scope="session")
def node_project():
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is missing: install Debian's nodejs and npm (Makefile TEST_DEB_PACKAGES)")
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (Makefile TEST_DEB_PACKAGES)")
    if not (HERE / "node_modules" / "playwright-core").is_dir():
        proc = subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=HERE, capture_output=True, text=True)
        if proc.returncode != 0:
            pytest.fail(f"npm ci failed in {HERE}:\n{proc.stderr[-2000:]}")
    return HERE


def run_check(node_project, mode, url, arg):
    proc = subprocess.run(["node", "browser_check.mjs", mode, url, str(arg)], cwd=node_project,
                          capture_output=True, text=True, env={**os.environ, "CHROMIUM": CHROMIUM})
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["ok"], report.get("error")
    return report


def viewed(node_project, run, mode, arg=""):
    """`gridscope view RUN` checked in MODE by browser_check.mjs: its report, after asserting
    the page had no script or console errors."""
    proc, url = start_view(run)
    try:
        report = run_check(node_project, mode, url, arg)
    finally:
        proc.terminate()
        proc.wait()
    assert not report["page_errors"] and not report["console_errors"]
    return report


def is_yellow(px):
    return abs(px[0] - 255) < 8 and abs(px[1] - 212) < 8 and abs(px[2]) < 8


def test_click_pattern_highlights_instances(node_project, demo_run):
    from matplotlib import image

    SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
    shot = SCREENSHOT_DIR / "viewer-late-sender.png"
    shot.unlink(missing_ok=True)
    proc, url = start_view(demo_run)
    try:
        report = run_check(node_project, "main", url, shot)
    finally:
        proc.terminate()
        proc.wait()
    waits = read_waitstates(demo_run)
    late = waits[waits.pattern == "late_sender"]
    assert not report["page_errors"] and not report["console_errors"] and not report["dialogs"]
    # the metric tree opens collapsed at the root (only the roots shown, Time at 100 %)
    assert "time" in report["metric_rows_at_start"] and "mpi" not in report["metric_rows_at_start"]
    assert report["root_pct"] == "100.0 %"
    # the clicked metric is selected and the timeline highlights exactly that pattern
    assert report["metric_selected"] == "true" and report["late_sender_open"] == "false"
    # ... and the closed pattern shows where it is: its inclusive seconds in the call and system trees
    for tree in ("call_values", "system_values"):
        shown = [(value, pct) for _, value, pct in report[tree] if value not in ("0 s", "–")]
        assert shown and all(pct.endswith(" %") for _, pct in shown), report[tree]
    calls = dict((key, value) for key, value, _ in report["call_values"])
    assert calls.get("main/MPI_Recv") not in (None, "0 s")  # the receives (an open "main" shows its own 0 s)
    assert report["highlight_attr"] == "late_sender"
    assert report["instances_text"].startswith(f"{len(late)} instances of late_sender")
    # the instance's box was not yellow before the click and is yellow after it
    assert report["before_is_highlight"] == 0
    assert report["after_is_highlight"] == len(report["after"]) == 6
    # over the whole run every late-sender instance is drawn highlighted, the grid child only grid ones
    assert report["highlighted_whole_run"] == len(late)
    assert report["grid_only_count"] == int((late["class"] == "grid").sum())
    assert report["matrix_cells"] and all(report["matrix_cells"])
    assert report["focus_attr"] == "main/MPI_Recv (inclusive)" and report["focus_count"] == 1
    # the screenshot exists and is not blank
    pixels = image.imread(shot)
    assert pixels.shape[0] > 500 and pixels.shape[1] > 1000
    assert float(np.std(pixels[..., :3])) > 0.05
    yellow = (np.abs(pixels[..., 0] - 1.0) < 0.03) & (np.abs(pixels[..., 1] - 212 / 255) < 0.03) & (pixels[..., 2] < 0.03)
    assert yellow.sum() > 20  # the highlighted instances are visible in the screenshot


def test_trace_names_are_shown_not_run(node_project, xss_run):
    proc, url = start_view(xss_run)
    try:
        report = run_check(node_project, "xss", url, XSS_NAME)
    finally:
        proc.terminate()
        proc.wait()
    assert report["name_shown"], report["call_labels"]
    assert report["img_elements"] == 0 and report["img_elements_after_hover"] == 0
    assert report["dialogs"] == [] and report["xss_flag"] is False
    assert not report["page_errors"]


def test_rank_matrix_has_axes_legend_and_log_scale(node_project, wide_run):
    """Issue 27: above 32 ranks the matrix has rank labels, a legend and a log scale that
    shows the smallest cell; its caption says the matrix holds point-to-point bytes only."""
    report = viewed(node_project, wide_run, "matrix")
    white = 255 * 3
    # the smallest cell: coloured on the log scale, lighter on the linear one
    assert sum(report["log_pixel"]) < sum(report["linear_pixel"]) <= white
    assert sum(report["log_pixel"]) < white - 60
    assert 1 <= report["label_step"] <= 11
    assert "linear scale" in report["legend_text"]
    assert report["caption"].startswith("Point-to-point messages:")
    # collectives' bytes are a choice of their own, and "all" is both
    totals = report["kind_totals"]
    assert totals["collective"] > 0 and totals["p2p"] > 0
    assert abs(totals["all"] - totals["p2p"] - totals["collective"]) < 1e-6 * totals["all"]
    assert report["caption_collective"].startswith("Collective operations:")
    assert "to the root" in report["caption_all"]


def test_diff_view_shows_base_new_and_share_of_base(node_project, tmp_path):
    """Issue 27: a difference experiment's nodes show delta, % of base and base → new, and
    no empty timeline box."""
    from viewer_fixtures import synth_trace

    from gstest import run_gridscope

    for name, iterations in (("base", 6), ("new", 4)):
        synth_trace(tmp_path / f"trace-{name}", ranks=8, metahosts=2, iterations=iterations)
        run_gridscope("analyze", tmp_path / f"trace-{name}", "-o", tmp_path / name, "-q")
    run_gridscope("diff", tmp_path / "base", tmp_path / "new", "-o", tmp_path / "diff")
    report = viewed(node_project, tmp_path / "diff", "diff")
    assert report["timeline_hidden"] is True
    # 6 -> 4 iterations of the same work: a third less time, shown as base → new
    base, new = (float(x.split()[0]) for x in report["time_basenew"].split(" → "))
    assert new < base
    assert report["time_pct"].startswith("-") and report["time_pct"].endswith("%")
    assert all(" → " in basenew for _, basenew, _ in report["call_basenew"]), report["call_basenew"]


def test_find_filters_both_trees_and_panes_resize(node_project, demo_run):
    """Issue 27: Find (as Cube's) keeps the matching nodes and their ancestors in both trees;
    the metric and call panes can be resized; the system pane shows the per-rank distribution."""
    report = viewed(node_project, demo_run, "find")
    calls = dict(report["find_calls"])
    assert calls == {"main": False, "main/MPI_Recv": True}
    assert report["find_metrics"] == 0  # no metric is called MPI_Recv
    metrics = dict(report["find_metric_keys"])
    assert metrics["late_sender"] is True and metrics["time"] is False
    assert all(key == "late_sender" or not match for key, match in metrics.items())
    assert report["cleared_calls"] > 2
    assert report["resize"] == ["horizontal", "horizontal", "vertical"]
    # per-rank distribution (Cube's box plot) of the selected metric, Time at the root
    assert report["distribution"].startswith("ranks: min ") and " median " in report["distribution"]
    assert report["distribution_max_rank"] == report["distribution_max_value"]


def test_timeline_labels_thin_rows_and_zooms_vertically(node_project, wide_run):
    """Issue 27: rows too thin for every label get every step-th one (11 px apart); the
    vertical zoom makes rows taller (fewer skipped labels) and shorter again."""
    report = viewed(node_project, wide_run, "rows")
    h, step = report["row_height"], report["label_step"]
    assert step == (1 if h >= 9 else -(-11 // h))
    assert report["row_height_taller"] > h and report["label_step_taller"] <= step
    assert report["row_height_back"] < report["row_height_taller"]


def test_hovering_a_message_names_its_ends_bytes_and_tag(node_project, demo_run):
    """Issue 27: a message line's tooltip gives sender, receiver, bytes, tag and times."""
    report = viewed(node_project, demo_run, "message")
    assert report["target"] is not None, "no message line long enough to hover"
    tip = report["tooltip"]
    assert tip.startswith("message Rank ") and " → Rank " in tip
    assert "KiB" in tip or " B" in tip
    assert f"tag {report['target']['tag']}" in tip
    assert "sent " in tip and "received " in tip


def test_bars_carry_names_when_zoomed_in(node_project, demo_run):
    """Issue 27: when a bar is wide and tall enough, its region's name is drawn inside it."""
    report = viewed(node_project, demo_run, "names")
    assert report["names_zoomed"] > 0


def test_metahost_groups_collapse_and_open(node_project, demo_run):
    """Issue 27: clicking a metahost header on the timeline collapses its group and opens it."""
    report = viewed(node_project, demo_run, "groups")
    assert report["collapsed_attr"] == report["metahost"]
    assert report["height_collapsed"] < report["height_open"]
    assert report["collapsed_after"] == ""


def test_rank_filter_keeps_only_those_rows(node_project, demo_run):
    """Issue 27: the timeline's rank filter shows only the ranks asked for; a bad range is
    one line in the status and changes nothing."""
    report = viewed(node_project, demo_run, "filter")
    assert report["all_rows"] >= 8
    assert report["filtered"] == [0, 1, 2, 5]
    assert "3-x" in report["bad_status"] and report["after_bad"] == [0, 1, 2, 5]


def test_window_summaries_follow_the_zoom(node_project, demo_run):
    """Issue 27: the function and process summaries of the zoom window (Vampir's)."""
    report = viewed(node_project, demo_run, "window")
    assert any("MPI_Recv" in row for row in report["functions_whole"])
    assert report["t1_zoomed"] < report["t1_whole"]
    assert 0 < report["processes"] <= 10


def test_value_modes_absolute_and_percent(node_project, demo_run):
    """Issue 27: Cube's value modes. Absolute: seconds with the share of the run; percent of
    the run: the share alone, Time at 100 %; back to absolute restores the seconds."""
    report = viewed(node_project, demo_run, "values")
    time_abs = dict((k, (v, p)) for k, v, p in report["absolute"])["time"]
    assert time_abs[0].endswith((" s", " ms", " µs")) and time_abs[1] == "100.0 %"
    time_pct = dict((k, (v, p)) for k, v, p in report["percent_metrics"])["time"]
    assert time_pct == ("100.0 %", "")
    assert report["percent_calls"] and all(v.endswith(" %") or v == "–" for _, v, _ in report["percent_calls"])
    assert report["back"] == report["absolute"]
