"""`gridscope merge`: join per-metahost trace parts into one OTF2 archive."""

from __future__ import annotations

from pathlib import Path
from typing import List

import typer

from gridscope.cli.app import app


@app.command()
def merge(
    parts: List[Path] = typer.Argument(
        ..., metavar="PART", help="Trace parts, one folder per metahost."
    ),
    output: Path = typer.Option(..., "-o", "--output", help="Folder for the joined trace."),
    force: bool = typer.Option(False, "--force", help="Replace an existing output folder."),
) -> None:
    """Join the per-metahost parts of a run recorded without a shared file system.

    Record with `-o 'DIR/%m'` (one folder per metahost), copy the parts to one machine,
    then `gridscope merge DIR/* -o joined`.
    """
    from gridscope.record.merge import merge_parts

    anchor = merge_parts(list(parts), output, force)
    typer.echo(f"gridscope: merged {len(parts)} part(s) into {anchor}")
