"""Flow fairness (`[platform] flow_fairness`): how two flows leaving one node's link at once
share it. programs/sharing.c sends 8 MiB from rank 0 to rank 1 (same metahost, 0.1 ms) and
to rank 2 (across a 10 ms, 10 Gb/s WAN) at once and times both.

Hand-derived from SimGrid's CM02 model (simgrid src/kernel/resource/models/network_cm02.cpp):
a flow pays its route's latency, then shares each link with weight 1 / penalty, where the
penalty is the route's latency plus weight-S / bandwidth of each of its links. "rtt": no
weight-S, the 10 ms flow gets 1/101 of the link while the 0.1 ms one runs. "equal":
weight-S = 1e9 (simgrid_xml.EQUAL_FAIRNESS_WEIGHT_S); the routes cross two private links of
1 Gb/s, the remote one also the WAN link: penalties 16.0001 and 16.81, nearly half each.
"""

from __future__ import annotations

import json

import pytest

from gstest import run_gridscope
from testbed_helpers import PROGRAMS, build

pytestmark = pytest.mark.slow

LINK = 125e6              # 1 Gb/s in bytes/s
WAN = 10 * LINK           # 10 Gb/s
BYTES = 8 << 20
LOCAL_LATENCY, REMOTE_LATENCY = 1e-4, 1e-2
WEIGHT_S = {"rtt": 0.0, "equal": 1e9}


def expected(fairness: str) -> tuple[float, float]:
    s = WEIGHT_S[fairness]
    penalty_local = LOCAL_LATENCY + s * 2 / LINK
    penalty_remote = REMOTE_LATENCY + s * (2 / LINK + 1 / WAN)
    share = (1 / penalty_local) / (1 / penalty_local + 1 / penalty_remote)
    # the local flow runs alone until the remote one has paid its latency, then shares
    local = REMOTE_LATENCY + (BYTES - LINK * (REMOTE_LATENCY - LOCAL_LATENCY)) / (LINK * share)
    remote = local + (BYTES - LINK * (1 - share) * (local - REMOTE_LATENCY)) / LINK
    return local, remote


def _platform(fairness: str) -> str:
    site = 'bandwidth = "1Gbps"\nlatency = "0.1ms"\n'
    return (f'[platform]\nflow_fairness = "{fairness}"\n[metahost.a]\nnodes = 2\n{site}'
            f'[metahost.b]\nnodes = 1\n{site}[wan]\nbandwidth = "10Gbps"\nlatency = "10ms"\n')


@pytest.fixture(scope="module")
def sharing(tmp_path_factory):
    out = tmp_path_factory.mktemp("fairness-bin")
    return build(PROGRAMS / "sharing.c", out / "sharing", True)


@pytest.mark.parametrize("fairness", ["rtt", "equal"])
def test_flows_share_a_link_as_the_platform_says(sharing, tmp_path, fairness):
    platform = tmp_path / f"{fairness}.toml"
    platform.write_text(_platform(fairness))
    proc = run_gridscope("record", "--platform", platform, "-np", "3", "-o", tmp_path / "t", "--", sharing)
    line = next(l for l in proc.stdout.splitlines() if l.startswith("sharing {"))
    got = json.loads(line[len("sharing "):])
    local, remote = expected(fairness)
    assert got["local_s"] == pytest.approx(local, rel=1e-3)
    assert got["remote_s"] == pytest.approx(remote, rel=1e-3)


def test_the_two_fairnesses_differ_where_it_matters():
    """The derivation itself: rtt lets the local flow finish in about one transfer time
    (67.8 ms), equal in nearly two (121.7 ms); the last byte arrives at the same time."""
    (rtt_local, rtt_remote), (eq_local, eq_remote) = expected("rtt"), expected("equal")
    assert rtt_local == pytest.approx(0.06778, abs=1e-5) and eq_local == pytest.approx(0.12166, abs=1e-5)
    assert rtt_remote == pytest.approx(eq_remote, rel=1e-6)
