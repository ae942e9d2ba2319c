"""`gridscope view RUN`: browse an analysis folder (profile, timeline, communication) in a browser."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from gridscope.cli.app import app


@app.command()
def view(
    run: Path = typer.Argument(..., help="Analysis folder (gridscope analyze -o OUT, or a diff); a bare trace shows its timeline only."),
    port: int = typer.Option(0, "--port", "-p", help="TCP port; 0 picks a free one."),
    host: Optional[str] = typer.Option(
        None, "--host", help="Address to listen on (default 127.0.0.1; anything else is reachable from the network)."
    ),
    no_browser: bool = typer.Option(False, "--no-browser", help="Only print the URL."),
    verbose: bool = typer.Option(False, "--verbose", help="Log every request."),
) -> None:
    """Serve a Cube-like profile browser and a Vampir-like timeline of RUN on a local web page."""
    import sys

    from rich.console import Console

    from gridscope.viewer.server import make_server

    if not 0 <= port <= 65535:
        raise typer.BadParameter("want 0..65535", param_hint="--port")
    err = Console(stderr=True)
    bind = host or "127.0.0.1"
    if host is not None and host not in ("127.0.0.1", "localhost", "::1"):
        err.print(f"[yellow]warning:[/] listening on {host}: anyone who can reach this address "
                  "can read the run (no authentication)")
    with err.status("Opening the run…"):  # the trace is read after the server listens
        server = make_server(run, bind, port, verbose)
    shown = "127.0.0.1" if bind in ("127.0.0.1", "localhost") else bind
    if ":" in shown:
        shown = f"[{shown}]"
    url = f"http://{shown}:{server.server_address[1]}/"
    print(f"gridscope view: serving {run} at {url}  (Ctrl-C stops)", flush=True)
    _report_load_error(server.data.background)
    if not no_browser:
        import webbrowser

        webbrowser.open(url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        if server.data.background is not None:
            server.data.background.stop()
    sys.exit(0)


def _report_load_error(load) -> None:
    """The trace is read after the server listens: its error (one line) goes to the
    terminal too, not only to the page; the profile stays browsable."""
    import sys
    import threading

    if load is None:
        return

    def report():
        load.wait()
        if load.error and not load.stopped:
            print(load.error, file=sys.stderr, flush=True)

    threading.Thread(target=report, daemon=True).start()
