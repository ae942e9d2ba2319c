"""`gridscope version`."""

from gridscope.cli.app import app


@app.command()
def version() -> None:
    """Print gridscope's version."""
    from gridscope.version import __version__

    print(f"gridscope {__version__}")
