"""Multi-rail nodes (`nics = K`): concurrent transfers from (and into) one node over
different NICs proceed side by side. twosends.c moves 8 MiB from rank 0 to rank 1, then to
ranks 1 and 2 at once, then from ranks 1 and 2 into rank 0 at once, one rank per node.

Hand-derived: 8 MiB over a 1 Gbps NIC takes 8 * 2**20 * 8 / 1e9 = 67.1 ms (+ 0.1 ms
latency). One NIC: two transfers share it, 134.2 ms. Two NICs: each has its own, 67.1 ms.
"""

from __future__ import annotations

import json

import pytest

from gstest import run_gridscope
from testbed_helpers import PROGRAMS, build

pytestmark = pytest.mark.slow

ONE_TRANSFER_S = 8 * 2**20 * 8 / 1e9


def _platform(nics: int) -> str:
    return (f"[metahost.a]\nnodes = 3\nbandwidth = \"1Gbps\"\nlatency = \"0.1ms\"\n"
            f"nics = {nics}\n")


@pytest.fixture(scope="module")
def twosends(tmp_path_factory):
    out = tmp_path_factory.mktemp("multirail-bin")
    return build(PROGRAMS / "twosends.c", out / "twosends", True)


def _measure(twosends, tmp_path, nics: int) -> dict:
    platform = tmp_path / f"nics{nics}.toml"
    platform.write_text(_platform(nics))
    proc = run_gridscope("record", "--platform", platform, "-np", "3", "-o",
                         tmp_path / f"t{nics}", "--", twosends)
    line = next(l for l in proc.stdout.splitlines() if l.startswith("twosends {"))
    return json.loads(line[len("twosends "):])


def test_two_nics_carry_two_transfers_at_once(twosends, tmp_path):
    one = _measure(twosends, tmp_path, 1)
    two = _measure(twosends, tmp_path, 2)
    for m in (one, two):  # a single transfer is the same on both
        assert m["one_send_s"] == pytest.approx(ONE_TRANSFER_S, rel=0.02)
    # one NIC: the two transfers share it
    assert one["two_sends_s"] == pytest.approx(2 * ONE_TRANSFER_S, rel=0.02)
    assert one["two_receives_s"] == pytest.approx(2 * ONE_TRANSFER_S, rel=0.02)
    # two NICs: side by side, half the time of one NIC
    assert two["two_sends_s"] == pytest.approx(ONE_TRANSFER_S, rel=0.02)
    assert two["two_receives_s"] == pytest.approx(ONE_TRANSFER_S, rel=0.02)
    assert two["two_sends_s"] / one["two_sends_s"] == pytest.approx(0.5, rel=0.02)
