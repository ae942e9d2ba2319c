"""The SMPI replayer (predictor/replay/gs_replay_actions.c, installed under share/predictor):
built as `gridscope cc --simulate` builds a program (so the collector records the replay and
the collectives go through SMPI or the topology-aware library) and run by the testbed's
simulated `record` on the chosen hosts.

The binary depends only on its inputs (source and the parts it includes, the collector's and
the collectives' SMPI archives, smpicc): their key names it. The install builds one beside the source with its key
(predictor/CMakeLists.txt); without it, or when the key differs, `gridscope predict` builds
one into the user's cache, once per key."""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import shutil
import tempfile
from pathlib import Path

from gridscope import native
from gridscope.errors import GridscopeError

PREDICTOR_DIR = "predictor"
SOURCE = Path(PREDICTOR_DIR) / "gs_replay_actions.c"
# the parts SOURCE includes, in order (one translation unit; GS_REPLAYER_PARTS in
# predictor/CMakeLists.txt lists the same, installs them beside SOURCE and keys them)
PARTS = ("gs_replay_world.inc", "gs_replay_wildcard.inc", "gs_replay_ops.inc")
BINARY = "gs_replay_actions"
KEY_SUFFIX = ".key"
CACHE_ENV = "GRIDSCOPE_CACHE_DIR"
SMPICC = "smpicc"
# how the replayer was found (summary.json, prediction.replayer)
INSTALLED, CACHED, BUILT = "installed", "cached", "built"
SPEEDS = "speeds.txt"
RULES_ENV = "GRIDSCOPE_COLL_RULES"
MODES = ("vanilla", "topo", "auto")


def replayer_key(inputs: list[Path]) -> str:
    """sha256 of the lines "sha256(input)" (predictor/replayer_key.cmake computes the same)."""
    text = "".join(hashlib.sha256(p.read_bytes()).hexdigest() + "\n" for p in inputs)
    return hashlib.sha256(text.encode()).hexdigest()


def _inputs(source: Path) -> list[Path]:
    from gridscope.testbed.cc import simulated_archives

    smpicc = shutil.which(SMPICC)
    if smpicc is None:
        raise GridscopeError(SMPICC, "compiler not found; install libsimgrid-dev")
    parts = [source.with_name(part) for part in PARTS]
    return [source, *parts, *simulated_archives(), Path(smpicc).resolve()]


def cache_root() -> Path:
    base = os.environ.get(CACHE_ENV)
    if base:
        return Path(base) / PREDICTOR_DIR
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(xdg) / "gridscope" / PREDICTOR_DIR


def _build_cached(source: Path, key: str, root: Path) -> Path:
    """Compiles into ROOT/KEY/ (a temporary folder renamed into place: concurrent
    predictions building the same key each finish with a whole binary)."""
    from gridscope.testbed.cc import compile_program

    target = root / key
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=root))
    try:
        compile_program([str(source), "-O2"], tmp / BINARY, simulate=True)
        try:
            tmp.rename(target)
        except OSError:
            if not (target / BINARY).is_file():  # not another prediction's build: a real failure
                raise GridscopeError(target, "cannot store the replayer in the cache") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target / BINARY


def find_replayer(share: Path, cache: Path) -> tuple[Path, str]:
    """The replayer binary for the source under SHARE, and how it was found: the installed
    one when its key matches, else CACHE/KEY/, built there if missing."""
    source = share / SOURCE
    if not source.is_file():
        raise GridscopeError(source, "the replayer source is missing; reinstall gridscope")
    for part in PARTS:
        if not (source.with_name(part)).is_file():
            raise GridscopeError(source.with_name(part), "the replayer source is missing; reinstall gridscope")
    key = replayer_key(_inputs(source))
    installed = share / PREDICTOR_DIR / BINARY
    stamp = installed.with_name(BINARY + KEY_SUFFIX)
    if installed.is_file() and stamp.is_file() and stamp.read_text().strip() == key:
        return installed, INSTALLED
    if (cache / key / BINARY).is_file():
        return cache / key / BINARY, CACHED
    return _build_cached(source, key, cache), BUILT


def build(folder: Path) -> tuple[Path, str]:
    """The replayer, copied into FOLDER (the prediction's replay folder keeps what repeats
    the replay); and how it was found (INSTALLED, CACHED, BUILT)."""
    exe, how = find_replayer(native.share_dir(), cache_root())
    local = folder / BINARY
    shutil.copy2(exe, local)
    return local, how


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
        speedups: dict[str, float], speeds: list[float], trace_dir: Path, trace: Path | None = None) -> Path:
    """Replays the action streams; a failed replay is one line naming TRACE (the recording)
    with SimGrid's reason (its log goes with the failed prediction's folder)."""
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
        tail = io.StringIO()
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(tail):
                return record_simulated(argv, platform, len(hosts), None, "block", mode, trace_dir,
                                        "64M", True, hosts=hosts)
        except GridscopeError as failure:
            raise GridscopeError(trace or failure.where, replay_failure(tail.getvalue(), failure.problem)) from None
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def replay_failure(tail: str, problem: str) -> str:
    """One line for a replay SimGrid stopped: its critical message when it gave one."""
    critical = [line.split("]", 2)[-1].strip() for line in tail.splitlines() if "CRITICAL]" in line]
    reason = critical[-1] if critical else problem.split(";")[0]
    hint = (" (a receive smaller than its message: the trace's byte counts disagree, see "
            "`gridscope analyze`'s byte_mismatches)" if "MPI_ERR_TRUNCATE" in reason else "")
    return f"the replay of this trace failed in SimGrid: {reason}{hint}"
