"""`gridscope analyze`: trace in, analysis folder out (docs/analyzer.md)."""

from __future__ import annotations

import json
import os
import shutil
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from gridscope.analysis import names as N
from gridscope.errors import GridscopeError


@dataclass(frozen=True)
class AnalyzeOptions:
    trace: Path
    output: Path
    jobs: int = 1
    metahosts: Path | None = None
    allow_unmatched: bool = False
    quiet: bool = False
    time_correct: bool = False
    latency_grid_s: float | None = None
    launcher: str | None = None  # command prefix ("srun -n 64") that starts the engine; sets the processes
    latency_node_s: float | None = None  # explicit minimum latencies for --time-correct (None: from the trace)
    latency_host_s: float | None = None
    wait_batch_rows: int = N.WAIT_BATCH_ROWS  # rows per record batch of waitstates.feather
    # delay costs, wait classes, critical path (docs/root-causes.md); None: the engine's
    # default (on)
    root_causes: bool | None = None
    # whose rules where gridscope and Scalasca's scout differ (N.RULES; docs/root-causes.md)
    rules: str = N.RULES_SCALASCA


METAHOST_FILE = "metahosts.txt"  # in the scratch folder: rank -> metahost, for the engine


def map_metahosts(anchor: Path, map_file: Path, path: Path) -> list[str]:
    """Metahost of every rank from a map file matched against the trace's node names, also
    written to `path` for the engine."""
    from gridscope.analysis.engine import list_ranks
    from gridscope.metahosts import load_map

    map_ = load_map(map_file)  # a bad map fails before the trace is touched
    rows = list_ranks(anchor)

    per_rank = map_.resolve_all([node for _, node, _ in rows])
    path.write_text("".join(f"{r}\t{m}\n" for r, m in enumerate(per_rank)))
    return per_rank


def check_unmatched(meta: dict, anchor: Path, allow: bool) -> None:
    sends, recvs = int(meta["unmatched_sends"]), int(meta["unmatched_receives"])
    if (sends or recvs) and not allow:
        raise GridscopeError(anchor, f"{sends + recvs} unmatched messages ({sends} sends without a receive, "
                                     f"{recvs} receives without a send); the trace is incomplete "
                                     "(use --allow-unmatched to analyse it anyway)")


def analyze(opts: AnalyzeOptions, progress=None) -> dict:
    """Runs the whole analysis; returns the summary that was written."""
    from gridscope.analysis.engine import launcher_prefix, resolve_anchor

    def step(text: str) -> None:
        if progress is not None:
            progress(text)

    if opts.jobs < 1:
        raise GridscopeError(None, f"-j must be at least 1 (got {opts.jobs})")
    if opts.launcher is not None and opts.jobs > 1:
        raise GridscopeError(None, f"-j {opts.jobs} and --launcher do not go together: the launcher sets "
                                   "the number of processes (e.g. --launcher \"srun -n 64\")")
    launcher = launcher_prefix(opts.launcher) if opts.launcher is not None else None
    anchor = resolve_anchor(opts.trace)
    out = Path(opts.output).absolute()
    if out.exists() and not out.is_dir():
        raise GridscopeError(out, "exists and is not a folder")
    with _removed_on_failure(out):
        return _analyze(opts, anchor, out, launcher, step)


@contextmanager
def _removed_on_failure(out: Path):
    """A failed analysis leaves no half-written folder behind: one it created is removed.
    (An existing folder keeps its files: the outputs are only written once the engine is done.)"""
    created = None  # the outermost folder this run creates (out itself, or a missing parent)
    for folder in (out, *out.parents):
        if folder.exists():
            break
        created = folder
    try:
        yield
    except BaseException:
        if created is not None:
            shutil.rmtree(created, ignore_errors=True)
        raise


def _analyze(opts: AnalyzeOptions, anchor: Path, out: Path, launcher, step) -> dict:
    from gridscope.analysis import prelaunch
    from gridscope.analysis.engine import RowsOnDisk, engine_command, launch

    scratch = out / N.ENGINE_DIR
    latencies = {"node": opts.latency_node_s, "host": opts.latency_host_s, "grid": opts.latency_grid_s}
    command = engine_command(anchor, scratch, opts.jobs, scratch / METAHOST_FILE if opts.metahosts else None,
                             time_correct=opts.time_correct, latencies=latencies, launcher=launcher,
                             root_causes=opts.root_causes, rules=opts.rules)
    early = prelaunch.adopt(command)  # started before the command line was parsed (never with --metahosts)
    if early is None:
        shutil.rmtree(scratch, ignore_errors=True)
        scratch.mkdir(parents=True)
    started = early.started if early is not None else time.perf_counter()
    try:
        per_rank = None
        if opts.metahosts is not None:
            step("metahosts")
            per_rank = map_metahosts(anchor, opts.metahosts, scratch / METAHOST_FILE)
        from concurrent.futures import Future, ThreadPoolExecutor

        # (the pool outside the engine: leaving early, the engine is stopped first, then the
        # conversion below finishes without putting its file in place)
        commit: Future = Future()  # whether the wait-state file may replace the folder's
        on_disk = RowsOnDisk()  # (a lone engine process's rows, converted as they come)
        streamed = False
        with ThreadPoolExecutor(max_workers=1) as pool, early or launch(command) as engine, _decided(commit), \
                _stopped_on_failure(on_disk):
            step("replay (--launcher)" if launcher is not None
                 else f"replay ({opts.jobs} process{'es' if opts.jobs > 1 else ''})")
            # The engine runs in its own process(es): load the Python side meanwhile. (An
            # exception here, e.g. SIGTERM, leaves the block: the engine is stopped, not awaited.)
            from gridscope.analysis import cube_export, engine_files, engine_waits, summary  # noqa: F401
            from gridscope.analysis import waitstates  # noqa: F401
            import gridscope.cube  # noqa: F401
            engine_waits.prepare_arrow()
            # One engine process says how many of its wait states are on disk as it goes: they
            # are converted during its replay. Several say when all are written, with root
            # causes: they are converted during the root-cause pass. Else after the engine.
            waits_written = None

            def on_rows(rows: int) -> None:
                nonlocal waits_written, streamed
                if not streamed:  # its first word: its call paths are written
                    waits_written = start_wait_file(pool, scratch, engine_files.read_stream_head(scratch),
                                                    out / N.WAITSTATES_FILE, commit, opts.wait_batch_rows, on_disk)
                    streamed = True
                on_disk.put(rows)

            all_written = engine.wait_for_wait_states(on_rows if launcher is None and opts.jobs == 1 else None)
            if all_written and not streamed:
                waits_written = start_wait_file(pool, scratch, engine_files.read_wait_head(scratch),
                                                out / N.WAITSTATES_FILE, commit, opts.wait_batch_rows)
            on_disk.end()  # (the rows are all on disk now, or the engine is done)
            engine.wait()
            engine_s = time.perf_counter() - started
            step("results")
            head = engine_files.read_head(scratch)
            if streamed and sum(head.meta["process_stats"][0]["wait_rows"]) != on_disk.last:
                raise GridscopeError(scratch / "meta.json", f"engine output counts {on_disk.last} wait-state rows "
                                                            "written and a different number per phase")
            check_unmatched(head.meta, anchor, opts.allow_unmatched)
            if per_rank is None:
                per_rank = [head.meta["metahosts"][i] for i in head.meta["rank_metahost"]]
            commit.set_result(True)  # the engine succeeded, its output is complete and matched
            summary = write_outputs(scratch, head, out, str(anchor), per_rank, opts.wait_batch_rows, waits_written)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    stats = head.meta["process_stats"]
    summary["analysis"] = {
        "processes": head.processes, "engine_s": round(engine_s, 4),
        "total_s": round(time.perf_counter() - started, 4),
        "peak_rss_kb": [p["peak_rss_kb"] for p in stats],
        "engine_process_s": [round(p["read_s"] + p["replay_s"] + p.get("root_causes_s", 0.0), 4) for p in stats],
        "root_causes_s": [round(p.get("root_causes_s", 0.0), 4) for p in stats],
        "clock_offset_locations": int(head.meta["clock_offset_locations"]),
    }
    from gridscope.analysis import partial

    if partial.needs_scan(anchor, summary["repaired_regions"]):
        step("partial trace")
        summary.update(partial.partial_keys(partial.scan(anchor)))
    (out / N.SUMMARY_FILE).write_text(json.dumps(summary, indent=1) + "\n")
    return summary


@contextmanager
def _stopped_on_failure(on_disk):
    """Leaving the block by an error or an interrupt stops a conversion of rows as they come
    (it would wait for rows that do not come)."""
    try:
        yield
    except BaseException:
        on_disk.stop()
        raise


@contextmanager
def _decided(commit):
    """Leaving the block without a decision (an error, an interrupt) decides: no commit."""
    try:
        yield
    finally:
        if not commit.done():
            commit.set_result(False)


def start_wait_file(pool, scratch: Path, head, target: Path, commit, batch_rows: int = N.WAIT_BATCH_ROWS,
                    rows_on_disk=None):
    """Starts converting the engine's wait states into the wait-state file on the pool's
    thread: made in the scratch folder, it replaces `target` once `commit` (a future) says
    True. Returns the conversion's future. Reading and writing the millions of wait states is
    mostly calls that do not hold the GIL, so the rest goes on meanwhile on the other core.
    `rows_on_disk` (engine.RowsOnDisk): a lone engine process's rows, converted as they come."""
    from gridscope.analysis.engine_waits import WaitBatches

    # (checks the files before anything is written; rows as they come: at the end)
    waits = WaitBatches(scratch, head, batch_rows, rows_on_disk)
    return pool.submit(_write_waits, waits, scratch, head, target, commit)


def write_outputs(scratch: Path, head, out: Path, trace: str, per_rank: list[str],
                  wait_batch_rows: int = N.WAIT_BATCH_ROWS, waits_written=None) -> dict:
    """Writes profile.cubex and the wait-state file from the engine's output; returns the
    summary. `waits_written`: the wait states' conversion if started already (start_wait_file,
    with the go-ahead decided by the caller)."""
    from concurrent.futures import Future, ThreadPoolExecutor

    from gridscope.analysis.critical_path_pieces import read_pieces, write_pieces
    from gridscope.analysis.cube_export import build_experiment
    from gridscope.analysis.engine_output import read_profile
    from gridscope.analysis import validate
    from gridscope.analysis.summary import build_summary
    from gridscope.cube import write_cubex

    # a wait-state file of an earlier version's analysis into the same folder is stale now
    (out / N.LEGACY_WAITSTATES_FILE).unlink(missing_ok=True)
    with ThreadPoolExecutor(max_workers=1) as pool:
        # the profile (hundreds of rows), summary and Cube file while the wait states are written
        if waits_written is None:  # the engine is done: the file may replace the folder's at once
            go: Future = Future()
            go.set_result(True)
            waits_written = start_wait_file(pool, scratch, head, out / N.WAITSTATES_FILE, go, wait_batch_rows)
        result = read_profile(scratch, head)
        pieces = read_pieces(scratch, head)
        summary = build_summary(result, trace, per_rank)
        problem = validate.impossible(summary)
        if problem is not None:  # refused before the Cube file; the wait states go again
            waits_written.result()
            (out / N.WAITSTATES_FILE).unlink(missing_ok=True)
            validate.check(summary, trace)
        summary["byte_mismatches"] = int(head.meta.get("byte_mismatches", 0))
        summary["warnings"] = validate.warnings(head.meta, summary)
        if pieces is not None:
            write_pieces(pieces, out / N.CRITICAL_PATH_FILE)
        else:  # the timeline must not show an earlier analysis's path
            (out / N.CRITICAL_PATH_FILE).unlink(missing_ok=True)
        write_cubex(build_experiment(result, per_rank, trace), out / N.PROFILE_FILE, mtime=_trace_mtime(trace))
        waits_written.result()
    return summary


def _trace_mtime(trace: str) -> int:
    """The Cube file's member times: the trace's, so that the file depends on nothing else."""
    return int(Path(trace).stat().st_mtime)


def _write_waits(waits, scratch: Path, head, target: Path, commit) -> None:
    from gridscope.analysis.engine_waits import remove_wait_columns
    from gridscope.analysis.waitstates import write_waitstate_batches

    made = scratch / N.WAITSTATES_FILE
    write_waitstate_batches(waits.schema, waits, made)
    # Delete the column files (the bulk of the scratch folder) here, beside the profile
    # work, rather than in the scratch clean-up afterwards.
    remove_wait_columns(scratch, head)
    if commit.result():  # (replacing a large earlier file frees its pages: here, not on the main thread)
        # The earlier file goes first: renamed over it, ext4 would start writing the new
        # file's data out at once (auto_da_alloc; ~11 ms per 50 MB on this machine).
        target.unlink(missing_ok=True)
        os.replace(made, target)
