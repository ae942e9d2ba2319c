"""The `gridscope predict` job: action streams from the trace, ranks onto the platform's
hosts, the SMPI replay recorded as OUT/trace, its analysis in OUT, and summary.json marked
as a prediction (docs/predict.md)."""

from __future__ import annotations

import importlib
import json
import re
import shutil
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from gridscope.errors import GridscopeError
from gridscope.metahosts import load_map
from gridscope.predict import actions as actions_mod
from gridscope.predict import mapping, replay, source

TRACE_DIR = "trace"
WORK_DIR = "replay"  # action streams and the replayer binary, kept for repeating the replay
SUMMARY = "summary.json"
PREDICTION_KEY = "prediction"


@dataclass
class Options:
    trace: Path
    output: Path
    platform: str | None = None
    collectives: str | None = None
    speedups: dict[str, float] = field(default_factory=dict)
    placement: str = mapping.BY_METAHOST
    metahosts: Path | None = None  # a metahost map relabelling the trace's ranks (Score-P traces)
    jobs: int = 1
    force: bool = False


class _Phases:
    """Wall seconds of each named phase of the job (summary.json, prediction.phases_s)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextmanager
    def __call__(self, name: str):
        started = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = round(time.perf_counter() - started, 4)


# the analysis's Python side: pandas and pyarrow take ~0.3 s to import, a third of a 24-rank
# prediction; they load on the other core while the replay runs (it takes twice as long;
# started earlier they would compete with reading the trace)
ANALYSIS_MODULES = ("gridscope.analysis.driver", "gridscope.analysis.cube_export",
                    "gridscope.analysis.engine_files", "gridscope.analysis.engine_waits",
                    "gridscope.analysis.summary", "gridscope.analysis.waitstates", "gridscope.cube")


def _preload(modules: tuple[str, ...]) -> threading.Thread:
    def load() -> None:
        for name in modules:
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 - the analysis itself reports a broken install
                return

    thread = threading.Thread(target=load, name="preload-analysis", daemon=True)
    thread.start()
    return thread


RANK_LIST = re.compile(r"^\d+(-\d+)?(,\d+(-\d+)?)*$")


def parse_speedups(specs: list[str]) -> dict[str, float]:
    """{"REGION" or "REGION@RANKS": factor} from --speedup REGION[@RANKS]=FACTOR."""
    out: dict[str, float] = {}
    for spec in specs:
        region, eq, factor = spec.rpartition("=")
        try:
            value = float(factor) if eq and region else -1.0
        except ValueError:
            value = -1.0
        name, at, ranks = region.rpartition("@")
        if value <= 0 or (at and (not name or not RANK_LIST.match(ranks))):
            raise GridscopeError(None, f"--speedup {spec!r}: want REGION=FACTOR or REGION@RANKS=FACTOR "
                                 "with a factor > 0 (0.8: the region's computation takes 80 %; RANKS "
                                 "such as 5 or 4-7,9)")
        out[region] = value
    return out


def speedup_region(key: str) -> str:
    """The region a parse_speedups key scales ("solve@4-7" -> "solve")."""
    name, at, _ = key.rpartition("@")
    return name if at else key


def _prepare_output(out: Path, force: bool) -> None:
    if out.exists() and any(out.iterdir()):
        if not force:
            raise GridscopeError(out, "already exists; use --force to replace it")
        if not (out / WORK_DIR).is_dir() and not (out / SUMMARY).is_file():
            raise GridscopeError(out, "exists and is not a prediction folder; not replacing it "
                                 "even with --force")
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)


def run(opts: Options, progress=None) -> dict:  # noqa: ANN001 - callback(str)
    from gridscope.analysis.driver import AnalyzeOptions, analyze
    from gridscope.testbed.platform import load_platform

    say = progress or (lambda _msg: None)
    started = time.perf_counter()
    phases = _Phases()
    src = source.resolve(opts.trace)
    platform = opts.platform or src.platform
    if platform is None:
        raise GridscopeError(src.anchor, "was not recorded on a simulated platform: give --platform")
    collectives = opts.collectives or src.collectives or "vanilla"
    replay.collectives_env(collectives)  # a bad mode fails before any work
    plat = load_platform(platform)
    relabel = None if opts.metahosts is None else load_map(opts.metahosts)  # fails before any work
    recorded = None
    if src.platform is not None:
        try:
            recorded = load_platform(src.platform)
        except GridscopeError:
            recorded = None  # the recording's platform file moved: computation not rescaled
    out = Path(opts.output).absolute()
    _prepare_output(out, opts.force)
    work = out / WORK_DIR
    say("reading the trace")
    with phases("actions"):
        acts = actions_mod.extract(src.anchor, work)
    regions = set((work / "regions.txt").read_text().splitlines())
    unknown = sorted({speedup_region(k) for k in opts.speedups} - regions)
    if unknown:
        raise GridscopeError(src.anchor, f"has no user region {', '.join(map(repr, unknown))} "
                             f"for --speedup (regions: {', '.join(sorted(regions)) or 'none'})")
    metahosts = acts.metahosts if relabel is None else relabel.resolve_all(acts.nodes)
    hosts = mapping.hosts_for(plat, metahosts, acts.nodes, opts.placement, str(src.anchor))
    speeds = mapping.recorded_speeds(recorded, acts.metahosts)
    preload = _preload(ANALYSIS_MODULES)
    say("building the replayer")
    with phases("replayer"):
        exe, replayer = replay.build(work)
    say(f"replaying {acts.ranks} ranks on {plat.name} ({collectives} collectives)")
    with phases("replay"):
        trace_dir = replay.run(exe, work, platform, hosts, collectives, opts.speedups, speeds,
                               out / TRACE_DIR, trace=src.anchor)
    replay_s = time.perf_counter() - started
    say("analysing the prediction")
    preload.join()
    with phases("analysis"):
        summary = analyze(AnalyzeOptions(trace_dir, out, jobs=opts.jobs, quiet=True))
    summary[PREDICTION_KEY] = {
        "from": str(src.anchor), "platform": plat.source, "recorded_platform": src.platform,
        "collectives": collectives, "recorded_collectives": src.collectives,
        "speedup": opts.speedups, "placement": opts.placement,
        "metahosts": None if opts.metahosts is None else str(opts.metahosts),
        "approximations": acts.approximations,
        "computation_rescaled": recorded is not None,
        "replay_s": round(replay_s, 3),
        "phases_s": phases.seconds,
        "replayer": replayer,
    }
    (out / SUMMARY).write_text(json.dumps(summary, indent=1) + "\n")
    return summary
