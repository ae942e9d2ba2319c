"""The report tells the terminal's story (gridscope.analysis.story) on a run with a planted
culprit: duration and start-up cards, findings with advice and predicted gain, where the
critical path runs, WAN links with nominal figures; call paths never split inside a region
name, in the HTML and in the A4 PDF."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess

import pytest

from gstest import run_gridscope

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def planted_report(planted_run, tmp_path_factory):
    root = tmp_path_factory.mktemp("story")
    _, an = planted_run("three-sites", "--plant", "slow-rank", "--rank", "5")
    _, master = planted_run("three-sites", "--plant", "master")
    pdf = shutil.which("chromium") is not None and shutil.which("pdftotext") is not None
    run_gridscope("report", an, "-o", root / "report.html", *(["--pdf"] if pdf else []))
    run_gridscope("report", master, "-o", root / "master.html")
    return root, json.loads((an / "summary.json").read_text()), pdf


def words(page: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page.replace("<wbr>", ""))).split())


def test_summary_leads_with_the_story(planted_report):
    from gridscope.analysis import story

    root, summary, _ = planted_report
    page = (root / "report.html").read_text()
    section = page[page.index('<section id="summary">'):page.index("</section>")]
    text = words(section)
    for card in ("Duration", "Critical path", "Start-up and shutdown"):
        assert card in text
    assert text.index("Duration") < text.index("Findings") < text.index("Critical path. The critical path runs")
    [item] = story.finding_items(summary)
    assert " ".join(item["title"].split()) in text and "(predicted)" in item["title"]
    assert f"What to try: {item['advice']}" in text
    assert "topology-aware" not in item["advice"]


def test_wan_links_with_nominal_figures(planted_report):
    root = planted_report[0]
    page = (root / "master.html").read_text()
    network = words(page[page.index('<section id="metahosts">'):])
    # alpha -> beta: 80 requests' replies of 4 B, measured beside the nominal 5 ms and 1 Gb/s
    # (119 MiB/s); no transfer of 32 KiB or more to measure a bandwidth with
    assert re.search(r"WAN links .*alpha → beta 80 320 B 5\.\d\d ms 5\.00 ms – 119 MiB/s", network), network
    summary = words(page[page.index('<section id="summary">'):page.index("</section>")])
    assert "Master bottleneck: rank 0 on alpha" in summary and "several masters" in summary


def test_call_paths_break_only_after_a_slash(planted_report):
    root, summary, pdf = planted_report
    page = (root / "report.html").read_text()
    assert "break-all" not in page
    assert "planted/<wbr>timestep/<wbr>solve" in page
    if not pdf:
        pytest.skip("needs chromium and poppler-utils (make test-deps)")
    text = subprocess.run(["pdftotext", "-layout", str(root / "report.pdf"), "-"], capture_output=True, text=True,
                          check=True).stdout
    joined = re.sub(r"/[ \t]*\n[ \t]*", "/", text)  # a break after a slash is allowed
    for finding in summary["findings"]:
        assert finding["cause"]["callpath"] in joined
    for row in summary["by_callpath"][:5]:
        for name in row["callpath"].split("/"):
            assert re.search(rf"(^|[/\s]){re.escape(name)}($|[/\s])", text, flags=re.M), name
