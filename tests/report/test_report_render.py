"""`gridscope report`: the HTML renders in headless Chromium with every section, the PDF's
pages render with pdftoppm, and names from traces stay text."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from cube_samples import analysis_folder, experiment, run_cli
from gridscope.cube import Experiment
from gridscope.report.render import chromium

ALL_SECTIONS = ("summary", "waitstates", "where", "metahosts", "clocks", "cycles", "diffs",
                "collectives", "method")

pytestmark = pytest.mark.skipif(shutil.which("pdftoppm") is None or
                                not Path("/usr/bin/chromium").exists() and
                                shutil.which("chromium") is None,
                                reason="needs chromium and poppler-utils (make test-deps)")


class Dom(HTMLParser):
    """Elements of Chromium's serialised DOM: (tag, attrs) in document order."""

    def __init__(self, text: str):
        super().__init__()
        self.elements: list[tuple[str, dict]] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def ids(self) -> list[str]:
        return [a["id"] for t, a in self.elements if t == "section" and "id" in a]

    def tags(self, name: str) -> list[dict]:
        return [a for t, a in self.elements if t == name]


def dump_dom(html: Path) -> str:
    proc = chromium(["--dump-dom", html.resolve().as_uri()], html)
    assert "<main>" in proc.stdout, proc.stderr[-2000:]
    return proc.stdout


def screenshot(html: Path, png: Path, height: int = 2400):
    chromium([f"--screenshot={png}", f"--window-size=1280,{height}",
              html.resolve().as_uri()], html)
    import matplotlib.image

    return matplotlib.image.imread(str(png))[..., :3]


def assert_not_blank(image: np.ndarray, what: str):
    ink = (image < 0.9).any(axis=2).mean()  # share of pixels that are not near-white
    assert ink > 0.03, f"{what}: only {ink:.1%} of the pixels carry anything"
    assert image.std() > 0.05, f"{what}: one flat colour"


@pytest.fixture(scope="module")
def full_report(cycles, tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "report.html"
    proc = run_cli("report", *cycles["runs"], cycles["diff"], "--compare", cycles["compare"],
                   "-o", out, "--pdf", "--title", "MetaTrace on VIOLA")
    assert f"wrote {out}" in proc.stdout
    return out


def test_every_section_is_in_the_rendered_dom(full_report):
    dom = Dom(dump_dom(full_report))
    assert dom.ids() == list(ALL_SECTIONS)
    charts = [a["src"] for a in dom.tags("img")]
    assert "Waiting per rank over time" in [a["alt"] for a in dom.tags("img")]
    assert len(charts) >= 7 and all(src.startswith("data:image/svg+xml;base64,")
                                    for src in charts)
    assert not dom.tags("script")
    assert not [a for t, a in dom.elements if t == "link" and a.get("rel") == "stylesheet"]
    toc = [a["href"] for a in dom.tags("a") if a.get("href", "").startswith("#")]
    assert toc == [f"#{s}" for s in ALL_SECTIONS]


def test_report_content_matches_the_runs(full_report):
    html = full_report.read_text()
    assert "MetaTrace on VIOLA" in html
    # Table 5 row for the first cycle: Wait at Barrier = 4 s of 38.1 s
    assert "10.5 %" in html
    # consecutive diffs and the given diff folder
    assert "cycle0 → cycle1" in html and "cycle1 → cycle2" in html and "diff02" in html
    assert "Falling in every cycle: MPI fraction, Wait at Barrier, Late Sender" in html
    assert "grid5000-2" in html and "2.00×" in html
    assert "Wait states with each collective mode, block placement" in html
    assert "21.250" in html and "19.750" in html


def test_screenshot_is_not_blank(full_report, tmp_path):
    image = screenshot(full_report, tmp_path / "top.png")
    assert_not_blank(image, "screenshot")
    masthead = image[:60].mean(axis=(0, 1))
    assert masthead[2] > masthead[0] + 0.1, "the masthead should be blue"


def test_pdf_pages_render(full_report, tmp_path):
    pdf = full_report.with_suffix(".pdf")
    assert pdf.read_bytes()[:5] == b"%PDF-"
    subprocess.run(["pdftoppm", "-r", "40", "-png", str(pdf), str(tmp_path / "page")],
                   check=True)
    import matplotlib.image

    pages = sorted(tmp_path.glob("page-*.png"))
    assert len(pages) >= len(ALL_SECTIONS) - 1  # sections start on new pages when printed
    for page in pages:
        image = matplotlib.image.imread(str(page))[..., :3]
        ink = (image < 0.9).any(axis=2).mean()
        assert ink > 0.005, f"{page.name} is blank"


def test_names_from_traces_are_escaped(tmp_path):
    evil = '<script>alert(1)</script><img src=x onerror="alert(2)">'
    base = experiment()
    paths = tuple(p.replace("cgiteration", evil) for p in base.callpaths)
    sev = base.severities.assign(callpath=base.severities.callpath.str.replace("cgiteration", evil))
    locations = base.locations.assign(metahost=base.locations.metahost.replace("jsc", "<b>jsc"))
    run = analysis_folder(tmp_path / "evil", Experiment(base.metrics, paths, locations, sev))
    summary = json.loads((run / "summary.json").read_text())
    assert any(evil in r["callpath"] for r in summary["by_callpath"])
    out = tmp_path / "evil.html"
    run_cli("report", run, "-o", out)
    dom = Dom(dump_dom(out))
    assert not dom.tags("script")
    assert not [a for a in dom.tags("img") if "onerror" in a]
    text = out.read_text()
    assert "&lt;b&gt;jsc" in text and "<b>jsc" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "<script" not in text


def test_single_run_report_has_only_its_sections(cycles, tmp_path):
    out = tmp_path / "one.html"
    run_cli("report", cycles["runs"][0], "-o", out)
    dom = Dom(dump_dom(out))
    assert dom.ids() == ["summary", "waitstates", "where", "metahosts", "clocks", "method"]


# ---- bad input ---------------------------------------------------------------------------

def _fails(*args) -> str:
    proc = run_cli(*args, check=False)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    line = proc.stderr.strip().splitlines()[-1]
    assert line.startswith("gridscope: "), proc.stderr
    return line


def test_missing_run(tmp_path):
    assert "no such directory" in _fails("report", tmp_path / "nope", "-o", tmp_path / "r.html")


def test_bad_compare_result(cycles, tmp_path):
    bad = tmp_path / "compare.json"
    bad.write_text(json.dumps({"rows": [{"op": "bcast", "bytes": -1, "vanilla_s": 1}]}))
    assert re.search(r"compare\.json: rows\[0\]\.bytes", _fails(
        "report", cycles["runs"][0], "--compare", bad, "-o", tmp_path / "r.html"))


def test_compare_without_vanilla(cycles, tmp_path):
    bad = tmp_path / "compare.json"
    bad.write_text(json.dumps({"rows": [{"op": "bcast", "bytes": 8, "topo_s": 1}]}))
    assert "lacks vanilla_s" in _fails("report", cycles["runs"][0], "--compare", bad,
                                       "-o", tmp_path / "r.html")


def test_report_help():
    proc = run_cli("report", "--help")
    assert "--pdf" in proc.stdout and "--compare" in proc.stdout
