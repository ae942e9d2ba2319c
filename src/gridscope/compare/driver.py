"""The `gridscope compare` job: build (or take) the program, record and analyse it in every
placement with vanilla, topo and auto collectives, derive auto's rule table from the
measurements, and write the report (see gridscope.compare.report)."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from gridscope.compare import bounds, collbench, report, rules, runs
from gridscope.errors import GridscopeError
from gridscope.testbed.placement import shares
from gridscope.testbed.run import PLATFORM_XML
from gridscope.testbed.simgrid_xml import platform_xml

DEFAULT_SIZES = (8, 1024, 65536, 1 << 20)
PLACEMENTS = ("block", "round-robin")
SELECTOR = "ompi"  # SimGrid's re-implementation of Open MPI's selection (the testbed's)


@dataclass
class Options:
    platform: str
    ranks: int
    output: Path
    app: list[str] | None = None
    placements: tuple[str, ...] = PLACEMENTS
    modes: tuple[str, ...] = report.MODES
    sizes: tuple[int, ...] = DEFAULT_SIZES
    ops: tuple[str, ...] = bounds.OPS
    rules: Path | None = None
    analyze: bool = True
    force: bool = False
    iterations: int = 2
    predict: bool = False  # also predict topo from each vanilla recording (gridscope predict)
    late: collbench.Late | None = None  # one metahost arrives late at every timed call
    vanilla_from: Path | None = None  # an earlier compare folder whose vanilla runs to take


@dataclass
class Result:
    rows: list[report.Row]
    waitstates: dict[str, list[dict]] = field(default_factory=dict)
    rules: Path | None = None


def check(opts: Options):  # noqa: ANN201 - Platform
    from gridscope.testbed.platform import load_platform

    plat = load_platform(opts.platform)
    if opts.ranks < 2:
        raise GridscopeError(None, f"-np must be at least 2, not {opts.ranks}")
    bad = [m for m in opts.modes if m not in report.MODES]
    if bad:
        raise GridscopeError(None, f"unknown mode {bad[0]!r}: use vanilla, topo, auto")
    bad = [p for p in opts.placements if p not in PLACEMENTS]
    if bad:
        raise GridscopeError(None, f"unknown placement {bad[0]!r}: use block, round-robin")
    bad = [o for o in opts.ops if o not in bounds.OPS]
    if bad:
        raise GridscopeError(None, f"unknown collective {bad[0]!r}: use {', '.join(bounds.OPS)}")
    if any(s < 1 for s in opts.sizes):
        raise GridscopeError(None, "message sizes must be at least 1 byte")
    if opts.rules is not None and not opts.rules.is_file():
        raise GridscopeError(opts.rules, "rule table does not exist")
    if opts.app is not None and "auto" in opts.modes and opts.rules is None:
        raise GridscopeError(None, "auto needs a rule table measured on the platform: give "
                             "--rules (the rules.txt of a collbench compare on this platform) "
                             "or leave auto out with --modes vanilla,topo")
    if opts.predict and opts.app is None:
        raise GridscopeError(None, "--predict needs --app: collbench's timings come from its own "
                             "output, which a replay does not write")
    if opts.predict and ("vanilla" not in opts.modes or not opts.analyze):
        raise GridscopeError(None, "--predict replays the vanilla recording and compares analyses: "
                             "keep vanilla in --modes and leave out --no-analysis")
    if opts.late is not None:
        if opts.app is not None:
            raise GridscopeError(None, "--late-site delays collbench's calls; it does not apply "
                                 "to --app programs")
        names = [mh.name for mh in plat.metahosts]
        if opts.late.site not in names:
            raise GridscopeError(None, f"--late-site {opts.late.site!r} is not a metahost of "
                                 f"{plat.name}: use one of {', '.join(names)}")
        if not 0 < opts.late.seconds < float("inf"):
            raise GridscopeError(None, "--late-by must be a positive number of milliseconds")
    if opts.vanilla_from is not None:
        _check_vanilla_from(opts, plat)
    if opts.app is not None and not Path(opts.app[0]).is_file():
        raise GridscopeError(opts.app[0], "program does not exist (build it with "
                             "`gridscope cc --simulate`)")
    if opts.output.exists() and any(opts.output.iterdir()):
        if not opts.force:
            raise GridscopeError(opts.output, "already exists; use --force to replace it")
        if not (opts.output / "compare.json").exists() and not (opts.output / "settings.json").exists():
            raise GridscopeError(opts.output, "exists and is not a compare folder; not "
                                 "replacing it even with --force")
        shutil.rmtree(opts.output)
    return plat


def _check_vanilla_from(opts: Options, plat) -> None:  # noqa: ANN001
    """The earlier compare must have run collbench's vanilla with the same platform, ranks and
    iterations in every placement asked for; which sizes and ops it covers is checked once
    its timings are read (`_vanilla_timings`). The same platform: the same SimGrid platform,
    however its file was named (a relative or an absolute path, a preset)."""
    src = opts.vanilla_from
    if opts.app is not None or opts.late is not None:
        raise GridscopeError(src, "--vanilla-from takes collbench's on-time vanilla runs: not "
                             "with --app or --late-site")
    if opts.output.resolve() == src.resolve():
        raise GridscopeError(src, "--vanilla-from is the output folder; write elsewhere")
    try:
        settings = json.loads((src / "settings.json").read_text())
    except (OSError, ValueError):
        raise GridscopeError(src, "not a compare folder (no readable settings.json)") from None
    if settings.get("app") is not None or settings.get("late") is not None:
        raise GridscopeError(src, "its runs are not collbench's on-time runs")
    ran = settings.get("platform"), settings.get("ranks")
    wanted = _without_comments(platform_xml(plat))
    for pl in opts.placements:
        if not (src / pl / "vanilla" / "collbench.json").is_file():
            raise GridscopeError(src, f"has no vanilla run in placement {pl}")
        try:
            earlier = (src / pl / "vanilla" / "trace" / PLATFORM_XML).read_text()
        except OSError:
            earlier = None
        if ran[1] != opts.ranks or earlier is None or _without_comments(earlier) != wanted:
            raise GridscopeError(src, f"ran {ran[0]} with {ran[1]} ranks, not {opts.platform} "
                                 f"with {opts.ranks}")


def _without_comments(xml: str) -> str:
    return re.sub(r"<!--.*?-->", "", xml, flags=re.S)


def _vanilla_timings(opts: Options, pl: str) -> list[collbench.Timing]:
    path = opts.vanilla_from / pl / "vanilla" / "collbench.json"
    timings = collbench.parse(path)
    for op in opts.ops:
        for size in (opts.sizes if op != "barrier" else opts.sizes[:1]):
            if collbench.lookup(timings, op, collbench.bench_size(op, size, opts.ranks)) is None:
                raise GridscopeError(path, f"has no vanilla timing of {op} at {size} bytes")
    return timings


def build_collbench(out: Path) -> Path:
    from gridscope import native
    from gridscope.testbed.cc import compile_program

    share = native.share_dir()
    source = share / collbench.SOURCE
    if not source.is_file():
        raise GridscopeError(source, "collbench source is missing; reinstall gridscope")
    exe = out / "collbench"
    compile_program([f"-I{share / collbench.COMMON}", "-O2", str(source)], exe, simulate=True)
    return exe


def _measured(opts: Options, timings: dict) -> list[rules.Measured]:
    out = []
    for pl in opts.placements:
        for op in opts.ops:
            for size in opts.sizes:
                b = collbench.bench_size(op, size, opts.ranks)
                v = collbench.lookup(timings[(pl, "vanilla")], op, b)
                t = collbench.lookup(timings[(pl, "topo")], op, b)
                if v is not None and t is not None:
                    out.append(rules.Measured(op, rules.LAYOUTS[pl],
                                              collbench.row_bytes(op, b, opts.ranks), v, t))
    return out


ON_TIME = "on-time"  # with a late site: the on-time runs auto's rules are derived from


def _record_collbench(opts: Options, program: list[str], pl: str, mode: str, folder: Path,
                      late: collbench.Late | None, rules_path: Path | None, say):  # noqa: ANN001
    cfg = runs.Config(opts.platform, opts.ranks, pl, mode, folder)
    bench_json = cfg.folder / "collbench.json"
    argv = [*program, *collbench.arguments(list(opts.ops), list(opts.sizes), opts.ranks,
                                           bench_json, iterations=opts.iterations, late=late)]
    say(f"recording {mode} ({pl}{'' if late else ', on time'})")
    trace = runs.record(cfg, argv, rules_path if mode == "auto" else None)
    return trace, collbench.parse(bench_json)


def _on_time_rules(opts: Options, program: list[str], out: Path, say) -> Path:  # noqa: ANN001
    """auto's rules with a late site come from on-time runs, as on a real machine: the
    library cannot know who will be late, and rules measured with the late site would only
    pick whichever of the two already won in this very run."""
    timings = {}
    for mode in ("vanilla", "topo"):
        for pl in opts.placements:
            _, timings[(pl, mode)] = _record_collbench(opts, program, pl, mode,
                                                       out / ON_TIME / pl / mode, None, None, say)
    path = out / "rules.txt"
    path.write_text(rules.render(rules.derive(_measured(opts, timings)),
                                 f"{opts.platform}, {opts.ranks} ranks, on-time runs in "
                                 f"{out / ON_TIME}"))
    return path


def run(opts: Options, progress=None) -> Result:  # noqa: ANN001 - callback(str)
    plat = check(opts)
    if opts.app is None and "auto" in opts.modes and "barrier" not in opts.ops:
        # collbench times every call from a barrier: auto needs a measured rule for it too,
        # or its runs would start from a different barrier than topo's
        opts.ops = (*opts.ops, "barrier")
    opts.output.mkdir(parents=True, exist_ok=True)
    out = opts.output.resolve()
    (out / "settings.json").write_text(json.dumps({
        "platform": opts.platform, "ranks": opts.ranks, "placements": list(opts.placements),
        "modes": list(opts.modes), "app": opts.app, "sizes": list(opts.sizes),
        "ops": list(opts.ops), "vanilla": f"SimGrid SMPI collectives, selector '{SELECTOR}'",
        "vanilla_from": str(opts.vanilla_from.resolve()) if opts.vanilla_from else None,
        "timing": "collbench, common start: mean over calls of last leaving - last arriving rank",
        "late": {"site": opts.late.site, "seconds": opts.late.seconds} if opts.late else None},
        indent=2) + "\n")
    say = progress or (lambda _msg: None)
    if opts.app is None:
        say("building collbench")
        program = [str(build_collbench(out))]
    else:
        program = [str(Path(opts.app[0]).resolve()), *opts.app[1:]]

    timings: dict = {}
    analyses: dict = {}
    rules_path = opts.rules.resolve() if opts.rules else None
    order = [m for m in ("vanilla", "topo") if m in opts.modes or
             (m == "vanilla" and opts.vanilla_from is not None)]
    if "auto" in opts.modes and opts.late is not None and rules_path is None:
        rules_path = _on_time_rules(opts, program, out, say)
    if "auto" in opts.modes:
        if opts.app is None and rules_path is None and set(order) != {"vanilla", "topo"}:
            order = ["vanilla", "topo"]  # auto's rules are measured from both
        order.append("auto")
    for mode in order:
        if mode == "auto" and rules_path is None:
            table = rules.derive(_measured(opts, timings))
            rules_path = out / "rules.txt"
            rules_path.write_text(rules.render(table, f"{opts.platform}, {opts.ranks} ranks, "
                                               f"{out / 'compare.json'}"))
        for pl in opts.placements:
            cfg = runs.Config(opts.platform, opts.ranks, pl, mode, out / pl / mode)
            if mode == "vanilla" and opts.vanilla_from is not None:
                say(f"taking vanilla ({pl}) from {opts.vanilla_from}")
                trace = opts.vanilla_from.resolve() / pl / "vanilla" / "trace"
                timings[(pl, mode)] = _vanilla_timings(opts, pl)
            elif opts.app is None:
                trace, timings[(pl, mode)] = _record_collbench(
                    opts, program, pl, mode, cfg.folder, opts.late, rules_path, say)
            else:
                say(f"recording {mode} ({pl})")
                trace = runs.record(cfg, list(program), rules_path if mode == "auto" else None)
            if opts.analyze:
                say(f"analysing {mode} ({pl})")
                analyses[(pl, mode)] = runs.analyze(cfg, trace)
            if opts.predict and mode == "vanilla":
                say(f"predicting topo from the vanilla recording ({pl})")
                analyses[(pl, runs.PREDICTED)] = runs.predict_topo(trace, out / pl)

    counts = shares(plat, opts.ranks, None)
    rows: list[report.Row] = []
    for pl in opts.placements:
        if opts.app is None:
            for op in opts.ops:
                for size in (opts.sizes if op != "barrier" else opts.sizes[:1]):
                    b = collbench.bench_size(op, size, opts.ranks)
                    nbytes = collbench.row_bytes(op, b, opts.ranks)
                    t = {m: collbench.lookup(timings[(pl, m)], op, b) if (pl, m) in timings
                         else None for m in report.MODES}
                    # the on-time bound does not hold after a late arrival (data may already
                    # be at the late site when it arrives)
                    bound = None if opts.late else bounds.multisite_bound_s(op, nbytes, plat,
                                                                              counts)
                    rows.append(report.Row(op, nbytes, pl, t["vanilla"], t["topo"], t["auto"],
                                           bound))
        else:
            t = {}
            for m in (*report.MODES, runs.PREDICTED):
                a = analyses.get((pl, m))
                t[m] = json.loads((a / "summary.json").read_text())["total_time_s"] if a else None
            rows.append(report.Row("program", 0, pl, t["vanilla"], t["topo"], t["auto"], None,
                                   t[runs.PREDICTED]))
    result = Result(rows, rules=rules_path)
    for pl in opts.placements:
        per_mode = {m: report.load_patterns(analyses[(pl, m)]) for m in (*order, runs.PREDICTED)
                    if (pl, m) in analyses}
        if per_mode:
            result.waitstates[pl] = report.waitstate_rows(per_mode)
    report.write_json(out / "compare.json", plat.name, opts.ranks, rows,
                      {"site": opts.late.site, "seconds": opts.late.seconds} if opts.late else None)
    (out / "waitstates.json").write_text(json.dumps(result.waitstates, indent=2) + "\n")
    report.plot(out / "compare.png", plat.name, opts.ranks, rows)
    return result
