"""`gridscope platform`: write the SimGrid platform XML of a preset or TOML file."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from gridscope.cli.app import app


@app.command()
def platform(
    spec: Optional[str] = typer.Argument(
        None, metavar="PRESET|FILE", help="A preset name (see --list) or a platform TOML file."
    ),
    output: Optional[Path] = typer.Option(
        None, "-o", "--output", help="XML file to write (default: standard output)."
    ),
    list_presets: bool = typer.Option(False, "--list", help="List the presets and exit."),
) -> None:
    """Show a simulated metacomputer as SimGrid XML (what `record --platform` runs on).

    Each metahost becomes a SimGrid cluster named after it, with hosts METAHOST-0, METAHOST-1 and so on.

    Figures are end to end; run the XML with smpirun --cfg=network/model:CM02 (gridscope record does).
    A packet-network platform (network = "packet") is written for ns-3 instead: one zone per metahost,
    run with --cfg=network/model:ns-3 and the settings its header comment names.
    """
    from gridscope.errors import GridscopeError
    from gridscope.testbed.platform import load_platform, preset_names
    from gridscope.testbed.simgrid_xml import platform_xml

    if list_presets:
        from gridscope.testbed.describe import describe

        for name in preset_names():
            typer.echo(describe(load_platform(name)))
        return
    if spec is None:
        raise typer.BadParameter("give a preset name or a TOML file (or --list)",
                                 param_hint="PRESET|FILE")
    xml = platform_xml(load_platform(spec))
    if output is None:
        typer.echo(xml, nl=False)
        return
    try:
        output.write_text(xml)
    except OSError as err:
        raise GridscopeError(output, f"cannot write: {err.strerror}") from None
    typer.echo(f"wrote {output}", err=True)
