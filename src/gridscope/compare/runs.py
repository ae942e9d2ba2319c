"""Recording and analysing one configuration (program x placement x collective mode) through
the gridscope CLI itself (`gridscope record --platform`, `gridscope analyze`), each in its
own folder: OUT/<placement>/<mode>/{trace/, analysis/, collbench.json, *.log}; with
--predict also OUT/<placement>/topo_predicted/ (`gridscope predict` of the vanilla trace with
topo collectives: its trace and analysis) and OUT/<placement>/predict.log."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from gridscope.errors import GridscopeError

RULES_ENV = "GRIDSCOPE_COLL_RULES"
PREDICTED = "topo_predicted"  # topo predicted from the vanilla recording (compare --predict)


@dataclass(frozen=True)
class Config:
    platform: str
    ranks: int
    placement: str  # block | round-robin
    mode: str  # vanilla | topo | auto
    folder: Path


def gridscope_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "gridscope", *args]


def _run(argv: list[str], log: Path, env: dict[str, str]) -> None:
    with open(log, "w") as out:
        proc = subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT, env=env)
    if proc.returncode != 0:
        tail = log.read_text(errors="replace").strip().splitlines()[-1:] or ["(no output)"]
        raise GridscopeError(log, f"`{' '.join(argv[3:5])}` failed (exit {proc.returncode}): "
                             f"{tail[0]}")


def record(cfg: Config, program: list[str], rules: Path | None) -> Path:
    cfg.folder.mkdir(parents=True, exist_ok=True)
    trace = cfg.folder / "trace"
    env = dict(os.environ)
    env.pop(RULES_ENV, None)
    if rules is not None:
        env[RULES_ENV] = str(rules.resolve())
    # per-collective overrides of the caller would blur the comparison
    for key in [k for k in env if k.startswith("GRIDSCOPE_COLL_") and k != RULES_ENV]:
        env.pop(key)
    argv = gridscope_argv("record", "--platform", cfg.platform, "-np", str(cfg.ranks),
                          "--placement", cfg.placement, "--coll", cfg.mode, "--force",
                          "-o", str(trace), "--", *program)
    _run(argv, cfg.folder / "record.log", env)
    return trace


def analyze(cfg: Config, trace: Path) -> Path:
    out = cfg.folder / "analysis"
    argv = gridscope_argv("analyze", str(trace), "-o", str(out), "--quiet")
    _run(argv, cfg.folder / "analyze.log", dict(os.environ))
    return out


def predict_topo(vanilla_trace: Path, folder: Path) -> Path:
    """The topo run predicted from the vanilla recording; returns its analysis folder."""
    out = folder / PREDICTED
    argv = gridscope_argv("predict", str(vanilla_trace), "-o", str(out), "--collectives", "topo",
                          "--force")
    _run(argv, folder / "predict.log", dict(os.environ))
    return out
