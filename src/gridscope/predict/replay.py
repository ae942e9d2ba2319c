"""The SMPI replayer (predictor/replay/gs_replay_actions.c, installed under share/predictor):
built with `gridscope cc --simulate` (so the collector records the replay and the
collectives go through SMPI or the topology-aware library) and run by the testbed's
simulated `record` on the chosen hosts."""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path

from gridscope import native
from gridscope.errors import GridscopeError

SOURCE = Path("predictor") / "gs_replay_actions.c"
BINARY = "gs_replay_actions"
SPEEDS = "speeds.txt"
RULES_ENV = "GRIDSCOPE_COLL_RULES"
MODES = ("vanilla", "topo", "auto")


def build(folder: Path) -> Path:
    from gridscope.testbed.cc import compile_program

    source = native.share_dir() / SOURCE
    if not source.is_file():
        raise GridscopeError(source, "the replayer source is missing; reinstall gridscope")
    exe = folder / BINARY
    compile_program([str(source), "-O2"], exe, simulate=True)
    return exe


def collectives_env(collectives: str) -> tuple[str, dict[str, str]]:
    """The mode for GRIDSCOPE_COLL and extra environment (a rule table for RULES)."""
    if collectives in MODES:
        return collectives, {}
    rules = Path(collectives)
    if not rules.is_file():
        raise GridscopeError(collectives, "not a collectives mode (vanilla, topo, auto) "
                             "nor a rule table file")
    return "auto", {RULES_ENV: str(rules.resolve())}


def run(exe: Path, actions: Path, platform: str, hosts: list[str], collectives: str,
        speedups: dict[str, float], speeds: list[float], trace_dir: Path) -> Path:
    from gridscope.testbed.run import record_simulated

    (actions / SPEEDS).write_text("".join(f"{s!r}\n" for s in speeds))
    mode, extra = collectives_env(collectives)
    argv = [str(exe), str(actions.resolve())]
    for region, factor in speedups.items():
        argv += ["--speedup", f"{region}={factor!r}"]
    saved = {k: os.environ.get(k) for k in extra}
    os.environ.update(extra)
    try:
        # the replayer prints nothing; smpirun's own lines stay in trace_dir/smpirun.log
        with contextlib.redirect_stdout(io.StringIO()):
            return record_simulated(argv, platform, len(hosts), None, "block", mode, trace_dir,
                                    "64M", True, hosts=hosts)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
