"""Wrongly encoded and wrongly typed inputs are input errors (one line naming the file,
exit 2), not internal errors (issue 24 item 4; before: exit 70 with a TypeError or a
UnicodeDecodeError)."""

from __future__ import annotations

import json
import shutil

import pytest

from faultkit import Outcome, make_trace, ring_spec, rng, run


@pytest.fixture(scope="module")
def analysed(tmp_path_factory):
    base = tmp_path_factory.mktemp("inputs")
    trace = make_trace(ring_spec(rng("input-errors")), base / "trace")
    done = run("analyze", trace, "-o", base / "run", "-q")
    assert done.returncode == 0, done.stderr
    return trace, base / "run"


def test_a_metahost_map_that_is_not_utf8(analysed, tmp_path):
    trace, _ = analysed
    bad = tmp_path / "map.json"
    bad.write_bytes(b'{"jsc\xff": ["rank:0-1"], "brs": ["rank:2"]}')
    out = tmp_path / "out"
    done = Outcome(run("analyze", trace, "-o", out, "-q", "--metahosts", bad), out, "non-UTF-8 map", False)
    done.refused(where=bad, problem="metahost map is not UTF-8 text (byte 0xff at offset 5)")


@pytest.mark.parametrize("key,value", [("metahosts", 3), ("p2p", "many"), ("total_time_s", "1.5"),
                                       ("patterns", {"late_sender": {"grid": "x"}}), ("findings", "none"),
                                       ("findings", [{"cause": {"kind": "computation", "callpath": 7,
                                                                "metahost": "A", "ranks": [1]}, "cost_s": 1.0}]),
                                       ("wan_links", [{"from": "A", "to": "B", "messages": "12"}])])
@pytest.mark.parametrize("command", ["export", "diff"])
def test_a_summary_with_a_wrong_type(analysed, tmp_path, key, value, command):
    _, good = analysed
    bad = tmp_path / "run"
    shutil.copytree(good, bad)
    summary = json.loads((bad / "summary.json").read_text())
    summary[key] = value
    (bad / "summary.json").write_text(json.dumps(summary))
    out = tmp_path / "out"
    argv = (["export", bad, "--format", "perfetto", "-o", out] if command == "export"
            else ["diff", good, bad, "-o", out])
    done = Outcome(run(*argv), out, f"{command} with summary {key}={value!r}", False)
    done.refused(where=bad / "summary.json")


def test_a_wait_state_file_with_a_damaged_name(analysed, tmp_path):
    """A pattern name in waitstates.feather's dictionary made invalid UTF-8 decodes only when
    the table becomes a DataFrame: still an input error naming the file (found by the fuzz,
    seed 2025445260, bad input #11: exit 70 before)."""
    _, good = analysed
    bad = tmp_path / "run"
    shutil.copytree(good, bad)
    feather = bad / "waitstates.feather"
    data = feather.read_bytes()
    at = data.index(b"late_sender")
    feather.write_bytes(data[:at] + b"\xff" + data[at + 1:])
    out = tmp_path / "out.json"
    done = Outcome(run("export", bad, "--format", "perfetto", "-o", out), out, "export, damaged wait-state name",
                   False)
    done.refused(where=feather, problem="cannot read wait states")
