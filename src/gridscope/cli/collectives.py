"""`gridscope collectives`: about the topology-aware collectives library (docs/collectives.md)."""

from __future__ import annotations

import typer

from gridscope.cli.app import app


@app.command(short_help="The topology-aware collectives library: its settings (GRIDSCOPE_COLL*).")
def collectives(
    ctx: typer.Context,
    settings: bool = typer.Option(False, "--settings", help="List every environment variable "
                                  "the library reads: type, default, allowed values, meaning."),
    markdown: bool = typer.Option(False, "--markdown", help="With --settings: a Markdown table "
                                  "(as in docs/collectives.md)."),
) -> None:
    """The topology-aware collectives library (libgridscope_coll; `gridscope compare` measures it).

    It is set up through GRIDSCOPE_COLL* environment variables, all read and checked at the
    first collective call. A bad value does not stop the run: rank 0 prints one warning naming
    the variable, the value and what is allowed, and the run goes on with the fallback (an
    unknown algorithm runs that collective vanilla; anything else takes its default).
    """
    from gridscope import collsettings, native
    from gridscope.errors import GridscopeError

    if not settings:
        if markdown:
            raise typer.BadParameter("goes with --settings", param_hint="--markdown")
        typer.echo(ctx.get_help())
        return
    path = native.native_dir() / "share" / "collectives" / "settings.toml"
    if not path.is_file():
        raise GridscopeError(path, "the collectives' settings declaration is missing; reinstall "
                             f"gridscope (make install) or set {native.NATIVE_ENV}")
    table = collsettings.load(path)
    typer.echo(collsettings.markdown(table) if markdown else collsettings.listing(table), nl=False)
