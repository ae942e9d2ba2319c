"""`gridscope cc`: compile an MPI program for real MPI or the simulated metacomputer."""

from __future__ import annotations

import typer

from gridscope.cli.app import app


# Compiler flags are passed through untouched, so the command registers no short options
# (click would split "-I/home/x" into -I, -h, -o ...); `-o BIN` is read from the arguments.
@app.command(
    context_settings={
        "allow_extra_args": True,
        "ignore_unknown_options": True,
        "help_option_names": ["--help"],
    },
)
def cc(
    ctx: typer.Context,
    simulate: bool = typer.Option(
        False, "--simulate", help="Build for the SimGrid metacomputer (smpicc + collector)."
    ),
    verbose: bool = typer.Option(False, "--verbose", help="Print the compiler command."),
) -> None:
    """Compile MPI sources: gridscope cc [--simulate] SRC... -o BIN \\[cc flags].

    Without --simulate this is mpicc; run the result with `gridscope record -- mpirun ...`, which preloads the collector.

    With --simulate it is smpicc with the collector (and the topology-aware collectives, when installed) linked in; run the result with `gridscope record --platform P -np N -- ./BIN`.
    """
    from gridscope.testbed.cc import compile_program, split_output

    args, output = split_output(list(ctx.args))
    compile_program(args, output, simulate, echo=verbose)
