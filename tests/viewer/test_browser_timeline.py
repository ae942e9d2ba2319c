"""Browser tests of the timeline's analyst tools (issue 27): colour families and legend,
function filter, matrix cell -> messages, collapsed metahost groups as one row.

Colours are checked by hue range (the family), never as exact pixels.
"""

from __future__ import annotations

import colorsys
import re

import pytest

from test_browser import node_project, viewed  # noqa: F401  (the fixture is used by name)


def hue_sat(px):
    """Hue in degrees and saturation (HSV) of an [r, g, b, a] pixel."""
    h, s, _ = colorsys.rgb_to_hsv(px[0] / 255, px[1] / 255, px[2] / 255)
    return h * 360, s


def in_family(px, family):
    hue, sat = hue_sat(px)
    if sat < 0.3:  # grey or white is no family
        return False
    if family == "computation":
        return 90 <= hue <= 150
    if family == "mpi":
        return hue >= 340 or hue <= 20
    if family == "wait":
        return 180 <= hue <= 240
    raise ValueError(family)


def mostly(pixels, family):
    """Most of the sampled pixels are in the family (a message line may cross one)."""
    return sum(in_family(px, family) for px in pixels) >= 2


def css_rgb(text):
    return [int(v) for v in re.findall(r"\d+", text)[:3]]


def test_colour_families_and_legend(node_project, demo_run):
    """Computation, MPI and wait-state bands come from different colour families, and the
    legend explains them with the colours the bars are drawn in."""
    report = viewed(node_project, demo_run, "colours")
    assert mostly(report["computation"], "computation"), report["computation"]
    assert mostly(report["mpi"], "mpi"), report["mpi"]
    assert mostly(report["wait"], "wait"), report["wait"]
    # and none of them is in another's family
    for name, pixels in (("computation", report["computation"]), ("mpi", report["mpi"]), ("wait", report["wait"])):
        others = {"computation", "mpi", "wait"} - {name}
        assert not any(mostly(pixels, other) for other in others), (name, pixels)
    assert report["legend_visible"]
    families = {family for family, _, _ in report["legend"]}
    assert {"computation", "mpi", "wait", "highlight", "message"} <= families
    # the legend's computation swatch is the colour of the computation bar
    legend = {text: css_rgb(colour) for family, text, colour in report["legend"]}
    bar = max(report["computation"], key=lambda px: in_family(px, "computation"))
    assert all(abs(a - b) <= 3 for a, b in zip(legend["computation"], bar[:3])), (legend, bar)
    assert "late_sender" in legend and in_family(legend["late_sender"] + [255], "wait")


def is_grey(px):
    return hue_sat(px)[1] < 0.1 and 150 < px[0] < 250


def is_white(px):
    return all(v >= 250 for v in px[:3])


def test_function_filter_greys_hides_and_clears(node_project, demo_run):
    """Vampir's function filter: only the chosen functions in colour, the others grey (or
    hidden); the chips show the filter, clearing it brings the colours back."""
    report = viewed(node_project, demo_run, "functions")
    assert report["collective_cp_is_allreduce"]
    before, filtered, hidden, cleared = (report[k] for k in ("before", "filtered", "hidden", "cleared"))
    assert mostly(before["compute"], "computation") and mostly(before["collective"], "mpi")
    # filtered on MPI_Allreduce: computation greyed, the Allreduce keeps its colour
    assert sum(map(is_grey, filtered["compute"])) >= 2, filtered["compute"]
    assert mostly(filtered["collective"], "mpi")
    # ... and so do the wait bands: Late Sender (in MPI_Recv) fades, Wait at NxN stays
    assert mostly(before["late_sender"], "wait") and mostly(before["wait_at_nxn"], "wait")
    assert not any(in_family(px, "wait") for px in filtered["late_sender"]), filtered["late_sender"]
    assert mostly(filtered["wait_at_nxn"], "wait")
    assert report["chips"] == ["MPI_Allreduce"] and report["clear_visible"]
    assert report["bad_status"].startswith("functions: ") and "no_such_function" in report["bad_status"]
    assert report["filter_after_bad"] == "MPI_Allreduce"
    # hide others: the computation bar is gone (background white), the Allreduce stays
    assert sum(map(is_white, hidden["compute"])) >= 2, hidden["compute"]
    assert not any(in_family(px, "wait") for px in hidden["late_sender"])
    assert mostly(hidden["collective"], "mpi")
    # cleared: colours back, no chips, no clear button
    assert mostly(cleared["compute"], "computation")
    assert report["chips_after_clear"] == 0 and not report["clear_visible_after"]


def is_yellow(px):
    return px[0] > 200 and px[1] > 170 and px[2] < 90


@pytest.mark.parametrize("run_name, kind", [("demo_run", "table"), ("wide_run", "canvas")])
def test_matrix_cell_highlights_its_messages(node_project, request, run_name, kind):
    """Clicking a cell of the rank matrix (a table up to 32 ranks, a canvas above) shows the
    timeline with that sender -> receiver pair's messages highlighted, says so, and clears."""
    report = viewed(node_project, request.getfixturevalue(run_name), "pairs")
    cell = report["cell"]
    assert report["kind"] == kind and report["analysis_tab"]
    assert report["caption"].startswith(f"messages Rank {cell['from']} ") and f"→ Rank {cell['to']} " in report["caption"]
    # the whole run is on screen: every message of the pair is highlighted, and only those
    assert report["pair_messages"] == cell["k"], (report["pair_messages"], cell)
    assert f"{cell['k']} in this window" in report["caption"]
    pair, other = report["line_pixels"]["pair"], report["line_pixels"]["other"]
    assert pair and all(map(is_yellow, pair)), pair
    assert not any(map(is_yellow, other)), other
    assert report["caption_hidden_after"]
    # a metahost cell highlights every message between the two metahosts
    mh = report["metahost_cell"]
    assert report["metahost_caption"].startswith(f"messages {mh['from']} → {mh['to']} highlighted")
    assert report["metahost_pair_messages"] == mh["k"]


def test_collapsed_group_is_one_stacked_row(node_project, demo_run):
    """A collapsed metahost group is one row: per pixel a column stacked by how many of its
    ranks are in MPI (bottom, red) or computing (green); reopening restores the rows."""
    report = viewed(node_project, demo_run, "aggregate")
    samples = report["samples"]
    assert samples["locations"] == samples["rows"] == 4
    assert report["height_open"] - 4 * 22 < report["height_collapsed"] < report["height_open"]
    mpi = [s["pixel"] for s in samples["mpi"] if s["count"] > 0]
    computation = [s["pixel"] for s in samples["computation"] if s["count"] > 0]
    assert len(mpi) == 3 and mostly(mpi, "mpi"), samples["mpi"]
    assert len(computation) == 3 and mostly(computation, "computation"), samples["computation"]
    tip = report["tooltip"]
    assert tip.startswith(f"{report['metahost']}: 4 locations in one row") and "MPI share of this pixel" in tip
    assert report["height_reopened"] == report["height_open"]


def test_function_filter_applies_to_the_collapsed_group_row(node_project, demo_run):
    """The function filter greys (or hides) the other functions in a collapsed group's
    aggregated row as in the rows: there the locations in other functions are a grey part
    of the pixel's column (nothing when hidden); clearing the filter brings the colours back."""
    report = viewed(node_project, demo_run, "aggfilter")
    before, greyed, hidden, cleared = (report[k] for k in ("before", "greyed", "hidden", "cleared"))
    assert before["filtered"] == 0 and len(before["categories"]) > 1
    assert greyed["categories"] == ["3"] and greyed["filtered"] > 0  # only the collective in colour
    filtered_out, idle = (220, 220, 220), (244, 244, 246)  # colours.js FILTERED_OUT, group-row.js idle
    near = lambda px, rgb: all(abs(a - b) <= 4 for a, b in zip(px, rgb))  # noqa: E731
    assert near(greyed["pixel"], filtered_out), greyed
    assert hidden["filtered"] == greyed["filtered"] and near(hidden["pixel"], idle), hidden
    assert cleared["filtered"] == 0 and sorted(cleared["categories"]) == sorted(before["categories"])
