"""`gridscope record`: run an MPI program with the collector and leave an OTF2 trace.

Two paths share this command:
- real MPI: ``gridscope record [--metahosts MAP.json] -- mpirun -np 8 ./app`` preloads the
  collector (gridscope.record.launch);
- simulated metacomputer: ``gridscope record --platform P -np N -- ./app`` runs a binary
  built with ``gridscope cc --simulate`` under SimGrid's smpirun (gridscope.testbed.run).
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import List, Optional

import typer

from gridscope.cli.app import app


class Placement(str, Enum):
    block = "block"
    round_robin = "round-robin"


class CollMode(str, Enum):
    vanilla = "vanilla"
    topo = "topo"
    auto = "auto"


@app.command(
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)
def record(
    ctx: typer.Context,
    output: Optional[Path] = typer.Option(
        None, "-o", "--output", help="Trace folder to create (holds traces.otf2)."
    ),
    metahosts: Optional[Path] = typer.Option(
        None, "--metahosts", help="Metahost map JSON: {metahost: [host glob | rank:LO-HI]}."
    ),
    platform: Optional[str] = typer.Option(
        None, "--platform", help="Simulate on this platform: a preset name or a TOML file."
    ),
    np: Optional[int] = typer.Option(
        None, "-np", "--np", help="Number of ranks (simulated runs)."
    ),
    layout: Optional[str] = typer.Option(
        None, "--layout", help="Ranks per metahost, e.g. 4,4 (simulated runs; default even)."
    ),
    placement: Placement = typer.Option(
        Placement.block, "--placement", help="Rank order across metahosts (simulated runs)."
    ),
    coll: CollMode = typer.Option(
        CollMode.vanilla, "--coll", help="Collective algorithms: vanilla, topo(logy-aware) or auto."
    ),
    buffer: str = typer.Option(
        "16M", "--buffer", help="Per-process event buffer before it is flushed to disk."
    ),
    force: bool = typer.Option(False, "--force", help="Replace an existing trace folder."),
) -> None:
    """Record an MPI run as a Score-P-layout OTF2 trace with metahost IDs.

    Put the program after `--`: `gridscope record -- mpirun -np 8 ./app` for real MPI,
    or `gridscope record --platform grid5000-2 -np 8 -- ./app` on a simulated grid.
    """
    command: List[str] = list(ctx.args)
    if not command:
        raise typer.BadParameter("give the program to run after `--`", param_hint="COMMAND")
    if platform is not None:
        from gridscope.testbed.run import record_simulated

        record_simulated(
            command=command,
            platform=platform,
            np=np,
            layout=layout,
            placement=placement.value,
            coll=coll.value,
            output=output,
            buffer=buffer,
            force=force,
        )
    else:
        from gridscope.record.launch import record_real

        record_real(
            command=command,
            output=output,
            metahosts=metahosts,
            coll=coll.value,
            buffer=buffer,
            force=force,
        )
