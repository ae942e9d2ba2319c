"""The engine started before the command line is parsed (docs/perf-analyzer.md, "Python part").

`gridscope analyze` spends ~40 ms importing typer and click before it knows its options,
the engine's time lost on a 2-core machine. For the usual command lines (a trace, -o, -j,
--[no-]root-causes, --rules, -q, --allow-unmatched, --[no-]gains) `early_engine` starts
the engine from a small parse of argv first. The driver adopts it only where the command it
would start itself is the very same (`adopt`); otherwise, or when the command ends without
adopting it (a usage error, a failed check), the engine is stopped and its scratch folder
removed. Every other command line starts the engine as before, from the driver.
"""

from __future__ import annotations

import shutil
from collections import namedtuple
from contextlib import contextmanager
from pathlib import Path

from gridscope.analysis import names as N
from gridscope.errors import GridscopeError

_FLAGS = {"-q": None, "--quiet": None, "--allow-unmatched": None, "--gains": None, "--no-gains": None,
          "--root-causes": True, "--no-root-causes": False}
_VALUED = {"-o": "output", "--output": "output", "-j": "jobs", "--jobs": "jobs", "--rules": "rules"}


# What the engine needs from an `analyze` command line (root_causes None: the engine's default).
EarlyLine = namedtuple("EarlyLine", "trace output jobs root_causes rules")


def parse(argv: list[str]) -> EarlyLine | None:
    """The engine's part of `analyze ARGS...` (argv without the command), or None for any line
    outside the usual forms (then the driver starts the engine after the full parse)."""
    values: dict[str, str] = {}
    positional: list[str] = []
    root_causes = None
    i = 0
    while i < len(argv):
        word = argv[i]
        i += 1
        if not word.startswith("-") or word == "-":
            positional.append(word)
            continue
        if word in _FLAGS:
            if _FLAGS[word] is not None:
                root_causes = _FLAGS[word]
            continue
        name, eq, value = word.partition("=")
        if word[:2] in ("-o", "-j") and len(word) > 2 and not word.startswith("--"):
            name, eq, value = word[:2], "=", word[2:]  # -j2, -oOUT
        if name not in _VALUED:
            return None
        if not eq:
            if i == len(argv):
                return None
            value = argv[i]
            i += 1
        values[_VALUED[name]] = value
    if len(positional) != 1 or not values.get("output"):  # (an empty -o is not the current folder)
        return None
    try:
        jobs = int(values.get("jobs", "1"))
    except ValueError:
        return None
    rules = values.get("rules", N.RULES_SCALASCA)
    if jobs < 1 or rules not in (N.RULES_SCALASCA, N.RULES_GRIDSCOPE):
        return None
    return EarlyLine(positional[0], values["output"], jobs, root_causes, rules)


_started: dict = {}  # "run": the engine started early and not adopted yet, "command": its command


@contextmanager
def early_engine(argv: list[str]):
    """For `gridscope analyze ...` (argv without the program), starts the engine at once where
    the line allows; the block then parses and runs the command. An engine left unadopted
    when the block ends is stopped and its folder removed."""
    line = parse(argv[1:]) if argv and argv[0] == "analyze" else None
    if line is not None:
        _start(line)
    try:
        yield
    finally:
        _discard()


def pending():
    """The engine started early and not adopted yet (an EngineRun), or None."""
    return _started.get("run")


def adopt(command) -> "object | None":
    """The engine started early for exactly `command` (an EngineCommand), now the caller's;
    None if there is none. One started for another command is stopped and its folder removed."""
    if _started.get("command") == command:
        run = _started.pop("run")
        _started.clear()
        return run
    _discard()
    return None


def _start(line: EarlyLine) -> None:
    from gridscope.analysis.engine import engine_command, launch, resolve_anchor

    try:
        anchor = resolve_anchor(Path(line.trace))
        out = Path(line.output).absolute()
        if out.exists() and not out.is_dir():
            return
        command = engine_command(anchor, out / N.ENGINE_DIR, line.jobs, None,
                                 root_causes=line.root_causes, rules=line.rules)
        shutil.rmtree(command.scratch, ignore_errors=True)
        command.scratch.mkdir(parents=True)
        _started.update(run=launch(command), command=command)
    except (GridscopeError, OSError):
        return  # the driver meets the same problem after the parse and reports it


def _discard() -> None:
    run, command = _started.pop("run", None), _started.pop("command", None)
    if run is not None:
        run.reap(stop=True)
        shutil.rmtree(command.scratch, ignore_errors=True)
