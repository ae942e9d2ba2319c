"""Self-contained HTML (and PDF) reports for a grid centre's performance team."""

from __future__ import annotations

from pathlib import Path
from typing import Callable


def write_report(inputs: list[Path], out: Path, *, pdf: bool = False,
                 compare: Path | None = None, title: str | None = None,
                 step: Callable[[str], None] = lambda _: None) -> tuple[Path, Path | None]:
    """Write the report for INPUTS (analysis or diff folders, compare results) to OUT."""
    from gridscope.report.build import build_context, split_inputs
    from gridscope.report.render import html_to_pdf, render_html

    step("reading the runs")
    runs, compares = split_inputs(list(inputs))
    if compare is not None:
        compares.append(Path(compare))
    context = build_context(runs, compares, title=title, step=step)
    step("writing the HTML")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    try:
        tmp.write_text(render_html(context), encoding="utf-8")
        tmp.replace(out)
    finally:  # a full disk leaves no half-written temporary behind
        tmp.unlink(missing_ok=True)
    pdf_path = None
    if pdf:
        step("printing the PDF with headless Chromium")
        pdf_path = html_to_pdf(out, out.with_suffix(".pdf"))
    return out, pdf_path
