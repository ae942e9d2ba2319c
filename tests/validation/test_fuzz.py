"""Seeded fuzz (issue 24 item 5): damaged traces of every kind the validation knows, and bad
inputs to the other commands. Whatever the damage: no traceback, no internal error, no
impossible figure, nothing dropped without a warning; a refusal is one line, exit 2,
nothing left. The seed is printed at the end of the run (faultkit.SEED)."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest

from faultkit import (Outcome, analyze, check_analysis, flip, make_trace, ring_spec, rng, run, set_timestamp,
                      timestamps)

TRACE_CASES = 40
INPUT_CASES = 30
KINDS = ["time_back", "timestamp_bit", "byte_flip", "truncate", "clock_offsets", "byte_count", "extra_barrier"]


def _base(r: random.Random, folder: Path, **damage) -> Path:
    spec = ring_spec(r, ranks=r.randint(2, 4), iterations=r.randint(3, 8), **damage)
    return make_trace(spec, folder)


def _files(trace: Path) -> list[Path]:
    return sorted(p for p in trace.rglob("*") if p.is_file() and p.suffix in (".evt", ".def", ".otf2"))


@pytest.mark.parametrize("case", range(TRACE_CASES))
def test_damaged_trace(tmp_path, case):
    r = rng(f"trace-{case}")
    kind = KINDS[case % len(KINDS)]
    expect = None  # (file, words) of a refusal that must come
    if kind == "byte_count":
        ranks_iters = (r.randint(0, 1), r.randint(0, 2), r.choice([0, 1, 63, 65, 2**40, 2**63]))
        trace = _base(r, tmp_path / "t", wrong_bytes=ranks_iters)
    elif kind == "extra_barrier":
        trace = _base(r, tmp_path / "t", extra_barrier=(r.randint(0, 1), r.randint(0, 2)))
    elif kind == "clock_offsets":
        t0, o0 = r.randint(0, 50), r.randint(-50, 5000)
        t1, o1 = t0 + r.randint(1, 3000), r.choice([r.randint(-5000, 5000), -2**40, 2**40, o0 - 10**6])
        spec = ring_spec(r, ranks=2, iterations=4).replace(
            "rank 1 b n1\n", f"rank 1 b n1\noffset 1 {t0} {o0}\noffset 1 {t1} {o1}\n")
        trace = make_trace(spec, tmp_path / "t")
        if t1 + o1 <= t0 + o0 or min(t0 + o0, t1 + o1) < 0:
            expect = (trace / "traces" / "1.def", "damaged ClockOffset")
    else:
        trace = _base(r, tmp_path / "t")
        evts = sorted((trace / "traces").glob("*.evt"))
        if kind == "time_back":
            evt = r.choice(evts)
            stamps = timestamps(evt, 0, 10**7)
            k = r.randint(2, len(stamps) - 1)
            set_timestamp(evt, stamps[k][0], r.randint(0, stamps[k - 1][1] - 1))
            expect = (evt, "damaged timestamp or ClockOffset")
        elif kind == "timestamp_bit":
            evt = r.choice(evts)
            offset, _ = r.choice(timestamps(evt, 0, 10**7))
            flip(evt, offset + 1 + r.randint(0, 7), r.randint(0, 7))
        elif kind == "byte_flip":
            target = r.choice(_files(trace))
            for _ in range(r.randint(1, 3)):
                flip(target, r.randrange(target.stat().st_size), r.randint(0, 7))
        elif kind == "truncate":
            target = r.choice(_files(trace))
            data = target.read_bytes()
            target.write_bytes(data[: r.randrange(len(data))])
    reader = r.choice(["analyze"] * 4 + ["export", "predict"])
    if reader == "analyze":
        done = analyze(trace, tmp_path / "out", *r.choice([(), ("-j", "2"), ("--time-correct",)]),
                       case=f"damaged trace #{case} ({kind})")
    else:  # the other readers of a trace (the trace tool, the predictor's action streams)
        out = tmp_path / "out"
        argv = (["export", trace, "--format", r.choice(["perfetto", "parquet"]), "-o", out] if reader == "export"
                else ["predict", trace, "-o", out, "--platform", "grid5000-2", "--placement", "block"])
        done = Outcome(run(*argv), out, f"damaged trace #{case} ({kind}) to {reader}", existed=False)
        if kind in ("byte_count", "extra_barrier"):
            expect = None  # counted by the analysis; these readers do not match messages
    if expect is not None:
        done.refused(where=expect[0], problem=expect[1])
    if reader == "analyze":
        check_analysis(done)
    else:
        done.sane()


# --- bad inputs to the other commands ---------------------------------------------------

def _damaged_summary(r: random.Random, path: Path) -> None:
    data = json.loads(path.read_text())
    key = r.choice(["total_time_s", "mpi_time_s", "ranks", "patterns", "p2p", "metahosts", "by_callpath",
                    "messages", "critical_path", "time_correction"])
    data[key] = r.choice(["abc", None, [], {}, -1, 1e308, "1e999", [1, "x"], {"grid": "x"}, True])
    path.write_text(json.dumps(data))


def _damage_run(r: random.Random, run_dir: Path) -> str:
    what = r.choice(["summary_type", "summary_bytes", "summary_cut", "cube_cut", "cube_bytes", "waits_cut",
                     "waits_bytes", "missing"])
    files = {"summary": run_dir / "summary.json", "cube": run_dir / "profile.cubex",
             "waits": run_dir / "waitstates.feather"}
    if what == "summary_type":
        _damaged_summary(r, files["summary"])
    elif what == "missing":
        r.choice(list(files.values())).unlink()
    else:
        target = files[what.split("_")[0]]
        data = bytearray(target.read_bytes())
        if what.endswith("cut"):
            data = data[: r.randrange(len(data))]
        else:
            for _ in range(r.randint(1, 8)):
                data[r.randrange(len(data))] = r.choice([0x00, 0xFF, 0xC3, 0x80, ord('"')])
        target.write_bytes(bytes(data))
    return what


@pytest.fixture(scope="module")
def good_run(tmp_path_factory):
    base = tmp_path_factory.mktemp("fuzz-run")
    trace = make_trace(ring_spec(rng("good-run")), base / "trace")
    done = run("analyze", trace, "-o", base / "run", "-q")
    assert done.returncode == 0, done.stderr
    return trace, base / "run"


def _bad_map(r: random.Random, path: Path) -> None:
    path.write_bytes(r.choice([
        b'{"a\xff": ["rank:0-1"]}', b"\xfe\xff\x00{", b'{"a": ["rank:1-0"]}', b'{"a": "rank:0"}',
        b'{"a": [1, 2]}', b"[]", b'{"a": ["rank:0-999999999999"]}', bytes(r.randrange(256) for _ in range(40)),
    ]))


def _bad_platform(r: random.Random, path: Path) -> None:
    path.write_bytes(r.choice([
        b"[metahost.a]\nhosts = -3\n", b"\xff\xfe garbage", b"[[[", b'name = "x"\n[metahost.a]\nhosts = "many"\n',
        bytes(r.randrange(256) for _ in range(60)),
    ]))


@pytest.mark.parametrize("case", range(INPUT_CASES))
def test_bad_input_to_a_command(good_run, tmp_path, case):
    r = rng(f"input-{case}")
    trace, good = good_run
    bad = tmp_path / "run"
    shutil.copytree(good, bad)
    out = tmp_path / "out"
    command = r.choice(["diff", "report", "export", "analyze-map", "platform", "merge"])
    if command == "analyze-map":
        _bad_map(r, tmp_path / "map.json")
        argv, what = ["analyze", trace, "-o", out, "-q", "--metahosts", tmp_path / "map.json"], "map"
    elif command == "platform":
        _bad_platform(r, tmp_path / "p.toml")
        argv, what = ["platform", tmp_path / "p.toml", "-o", out], "platform"
    elif command == "merge":
        part = tmp_path / "part"
        shutil.copytree(trace, part)
        target = r.choice(_files(part))
        flip(target, r.randrange(target.stat().st_size), r.randint(0, 7))
        argv, what = ["merge", part, "-o", out], f"part {target.name}"
    else:
        what = _damage_run(r, bad)
        argv = {"diff": ["diff", good, bad, "-o", out], "report": ["report", bad, "-o", out],
                "export": ["export", bad, "--format", r.choice(["perfetto", "parquet"]), "-o", out]}[command]
    done = Outcome(run(*argv), out, f"bad input #{case}: {command} ({what})", existed=False)
    done.sane()
