"""The packet network (`[platform] network = "packet"`): programs/pingpong.c on ns-3, with the
figures derived by hand from what SimGrid's ns-3 binding does with a message (SimGrid 3.32
src/surf/ns3/ns3_simulator.cpp, src/surf/network_ns3.cpp): a new TCP connection, whose
end SimGrid waits for.

- 1 byte one way: the handshake (SYN there, SYN-ACK back: one round trip), the data with
  the sender's FIN (one way) and the receiver's FIN back (one way), since SimGrid ends the
  message when the sender's connection closes: two round trips, 4 x the one-way latency.
- bandwidth inside a metahost: the node links' rate times the payload share of a packet
  (segment / (segment + 40 bytes of TCP/IP + 2 of point-to-point framing)).
- bandwidth across the WAN: the window (the receive buffer) per round trip, since a window
  of 128 KiB is far below the WAN's bandwidth-delay product (25 MB at 10 Gb/s, 20 ms).
"""

from __future__ import annotations

import json

import pytest

from gstest import run_gridscope
from testbed_helpers import PROGRAMS, build, definitions, machines, rank_hosts

pytestmark = pytest.mark.slow

LINK_Bps, WAN_LATENCY, NODE_LATENCY = 125e6, 10e-3, 0.1e-3
HEADERS = 40 + 2
PLATFORM = """[platform]
network = "packet"
[metahost.a]
nodes = 2
bandwidth = "1Gbps"
latency = "0.1ms"
[metahost.b]
nodes = 1
bandwidth = "1Gbps"
latency = "0.1ms"
[wan]
bandwidth = "10Gbps"
latency = "10ms"
"""
SETTINGS = '[packet]\nwindow = "256KiB"\nsegment_size = 1448\n'


@pytest.fixture(scope="module")
def pingpong(tmp_path_factory):
    out = tmp_path_factory.mktemp("packet-bin")
    return build(PROGRAMS / "pingpong.c", out / "pingpong", True)


def _run(pingpong, tmp_path, text: str, layout: str) -> tuple[dict, object]:
    platform = tmp_path / "packet.toml"
    platform.write_text(text)
    out = tmp_path / f"trace-{layout.replace(',', '-')}"
    proc = run_gridscope("record", "--platform", platform, "--layout", layout, "-o", out, "--",
                         pingpong)
    line = next(l for l in proc.stdout.splitlines() if l.startswith("pingpong {"))
    return json.loads(line[len("pingpong "):]), out


def test_a_message_is_a_tcp_connection_in_ns3(pingpong, tmp_path):
    wan, out = _run(pingpong, tmp_path, PLATFORM, "2,1")  # rank 0 on a-0, rank 2 on b-0
    assert wan["latency_s"] == pytest.approx(4 * WAN_LATENCY, rel=1e-3)
    assert wan["bandwidth_Bps"] == pytest.approx((128 << 10) / (2 * WAN_LATENCY), rel=3e-3)
    local, _ = _run(pingpong, tmp_path, PLATFORM, "2,0")
    assert local["latency_s"] == pytest.approx(4 * NODE_LATENCY, rel=2e-2)
    assert local["bandwidth_Bps"] == pytest.approx(LINK_Bps * 1000 / (1000 + HEADERS), rel=1e-3)
    # recorded as on the flow network: metahosts from the zones, hosts from the platform
    defs = definitions(out / "traces.otf2")
    assert machines(defs) == ["a", "b"]
    assert rank_hosts(defs) == {0: "a-0", 1: "a-1", 2: "b-0"}
    settings = json.loads((out / "record.json").read_text())
    assert "--cfg=network/model:ns-3" in settings["smpirun"]
    assert "NS_ATTRIBUTE_DEFAULT" in settings["environment"]


def test_packet_settings_reach_ns3(pingpong, tmp_path):
    """A 256 KiB window doubles the WAN rate; 1448-byte segments carry more per packet."""
    wan, _ = _run(pingpong, tmp_path, PLATFORM + SETTINGS, "2,1")
    assert wan["bandwidth_Bps"] == pytest.approx((256 << 10) / (2 * WAN_LATENCY), rel=3e-3)
    local, _ = _run(pingpong, tmp_path, PLATFORM + SETTINGS, "2,0")
    assert local["bandwidth_Bps"] == pytest.approx(LINK_Bps * 1448 / (1448 + HEADERS), rel=1e-3)


def test_two_ranks_on_one_node_are_refused(pingpong, tmp_path):
    platform = tmp_path / "packet.toml"
    platform.write_text(PLATFORM)
    proc = run_gridscope("record", "--platform", platform, "-np", 4, "-o", tmp_path / "t", "--",
                         pingpong, check=False)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"gridscope: {platform}:"), proc.stderr
    assert "one rank per node" in lines[0] and "4 ranks on 3 nodes" in lines[0]
    assert not (tmp_path / "t").exists()
