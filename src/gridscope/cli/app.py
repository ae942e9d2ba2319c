"""The Typer application every command module in this package registers with.

Command modules import only typer at module level; whatever a command needs (numpy,
pandas, the engine) is imported inside the command, so `gridscope --help` stays fast.
"""

import typer
import typer.core

# We show plain click help and plain errors, so typer is told not to use rich at all:
# otherwise it still imports its rich helpers (~0.1 s, every command's --help) just to
# escape each "[default: …]" and "[required]", which plain help then shows as "\[required]".
typer.core.HAS_RICH = False

app = typer.Typer(
    name="gridscope",
    help="Trace-based performance analysis of MPI runs spread over several clusters.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain click help: rendering it with rich costs ~0.15 s of start-up per command.
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@app.callback()
def _root() -> None:
    """Trace-based performance analysis of MPI runs spread over several clusters."""
