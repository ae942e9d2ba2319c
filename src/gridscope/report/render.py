"""Render the report context to one self-contained HTML file, and print it to PDF."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from gridscope.errors import GridscopeError

TEMPLATES = Path(__file__).resolve().parent / "templates"
CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome")
CHROMIUM_ENV = "GRIDSCOPE_CHROMIUM"
# No network, no updates, no profile left behind: a plain offline renderer.
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run", "--disable-extensions",
                  "--hide-scrollbars")


def _missing(v) -> bool:
    return v is None


def secs(v) -> str:
    if _missing(v):
        return "–"
    a = abs(v)
    if a == 0 or a >= 1:
        return f"{v:,.2f} s"
    if a >= 1e-3:
        return f"{v * 1e3:.2f} ms"
    return f"{v * 1e6:.1f} µs"


def num(v, digits: int = 3) -> str:
    return "–" if _missing(v) else f"{v:,.{digits}f}"


def pct(v) -> str:
    return "–" if _missing(v) else f"{v:.1f} %"


def spct(v) -> str:
    return "–" if _missing(v) else f"{v:+.1f} %"


def signed(v) -> str:
    return "–" if _missing(v) else f"{v:+,.3f}"


def human_bytes(v) -> str:
    if _missing(v):
        return "–"
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(v) >= size:
            return f"{v / size:.4g} {unit}"
    return f"{int(v)} B"


def fmt(v, kind: str) -> str:
    if _missing(v):
        return "–"
    if kind == "mib":
        return f"{v / 2**20:,.2f}"
    if kind == "us":
        return f"{v * 1e6:,.1f}"
    return str(v)


def callpath(v) -> "markupsafe.Markup":
    """A call path that breaks only after its slashes (never inside a region name)."""
    import markupsafe

    return markupsafe.Markup("/<wbr>").join(markupsafe.escape(str(v)).split("/"))


def render_html(context: dict) -> str:
    import jinja2

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)),
                             autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True)
    from gridscope.report.pattern_info import display

    env.filters.update(secs=secs, num=num, pct=pct, spct=spct, signed=signed,
                       bytes=human_bytes, fmt=fmt, pattern_name=display, path=callpath)
    index = {sid: i for i, (sid, _) in enumerate(context["sections"], start=1)}
    return env.get_template("report.html.j2").render(**context, sections_index=index)


def find_chromium() -> str:
    override = os.environ.get(CHROMIUM_ENV)
    for candidate in ((override,) if override else CHROMIUM_CANDIDATES):
        found = shutil.which(candidate)
        if found:
            return found
    raise GridscopeError(None, "no Chromium found for the PDF (install the Debian package "
                               f"'chromium' or set {CHROMIUM_ENV})")


def chromium(args: list[str], where: Path, timeout: float = 180) -> subprocess.CompletedProcess:
    """Run headless Chromium with a throw-away profile; errors name WHERE."""
    with tempfile.TemporaryDirectory(prefix="gridscope-chromium-") as profile:
        cmd = [find_chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args]
        try:
            return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                                  stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise GridscopeError(where, f"Chromium did not finish within {timeout:.0f} s") from None


def html_to_pdf(html: Path, pdf: Path) -> Path:
    html, pdf = Path(html).resolve(), Path(pdf).resolve()
    pdf.unlink(missing_ok=True)
    proc = chromium(["--no-pdf-header-footer", f"--print-to-pdf={pdf}", html.as_uri()], pdf)
    if not pdf.is_file() or pdf.stat().st_size == 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise GridscopeError(pdf, f"Chromium did not write the PDF ({last})")
    return pdf
