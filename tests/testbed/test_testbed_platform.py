"""Platforms: units, TOML parsing (every bad input gives one line), presets, SimGrid XML."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from gstest import run_gridscope
from gridscope.errors import GridscopeError
from gridscope.testbed import units
from gridscope.testbed.platform import PER_FLOW, load_platform, parse_platform, preset_names
from gridscope.testbed.simgrid_xml import platform_xml

TWO_SITES = """
[metahost.siteA]
nodes = 4
bandwidth = "894Mbps"
latency = "0.1ms"
[metahost.siteB]
nodes = 2
cores = 2
bandwidth = "1Gbps"
latency = "50us"
[wan]
bandwidth = "136Mbps"
latency = "7.8ms"
"""


def test_units():
    assert units.bandwidth("894Mbps") == pytest.approx(894e6 / 8)
    assert units.bandwidth("47.3MBps") == pytest.approx(47.3e6)
    assert units.bandwidth("1GiBps") == 2**30
    assert units.duration("7.8ms") == pytest.approx(7.8e-3)
    assert units.duration("30.3us") == pytest.approx(30.3e-6)
    assert units.speed("2.2Gf") == pytest.approx(2.2e9)
    for bad in ("fast", "10", "10 Mb", "10Mbit"):
        with pytest.raises(units.UnitError):
            units.bandwidth(bad)
    for bad in ("soon", "-3ms", "3 parsecs"):
        with pytest.raises(units.UnitError):
            units.duration(bad)


def test_two_site_toml():
    p = parse_platform(TWO_SITES, "two.toml", "two")
    assert [m.name for m in p.metahosts] == ["siteA", "siteB"]
    assert p.metahosts[1].cores == 2 and p.metahosts[0].cores == 1
    assert p.metahosts[0].loopback_latency == p.metahosts[0].latency
    assert p.route("siteA", "siteB").latency == pytest.approx(7.8e-3)
    assert p.route("siteB", "siteA").bandwidth == pytest.approx(17e6)


def test_pair_override_one_direction():
    text = TWO_SITES + '[[wan.pair]]\nfrom = "siteB"\nto = "siteA"\nlatency = "9ms"\n'
    p = parse_platform(text, "two.toml", "two")
    assert p.route("siteB", "siteA").latency == pytest.approx(9e-3)
    assert p.route("siteA", "siteB").latency == pytest.approx(7.8e-3)


def test_xml_splits_end_to_end_figures():
    p = parse_platform(TWO_SITES, "two.toml", "two")
    root = ET.fromstring(platform_xml(p))  # well-formed XML (comments included)
    clusters = {c.get("id"): c for c in root.iter("cluster")}
    assert set(clusters) == {"siteA", "siteB"}
    assert clusters["siteA"].get("prefix") == "siteA-" and clusters["siteA"].get("radical") == "0-3"
    # a node link carries half the node-to-node latency
    assert units.duration(clusters["siteA"].get("lat")) == pytest.approx(0.05e-3)
    links = {l.get("id"): l for l in root.iter("link")}
    wan = links["wan-siteA-to-siteB"]
    # end to end: 0.05 ms (siteA node) + link + 0.025 ms (siteB node) = 7.8 ms
    assert units.duration(wan.get("latency")) == pytest.approx(7.8e-3 - 0.05e-3 - 0.025e-3)
    assert wan.get("sharing_policy") == "SHARED"
    routes = [(z.get("src"), z.get("dst")) for z in root.iter("zoneRoute")]
    assert sorted(routes) == [("siteA", "siteB"), ("siteB", "siteA")]


def test_presets():
    assert set(preset_names()) >= {"grid5000-2", "grid5000-3", "viola", "lg-30-30", "lg-20-40"}
    g3 = load_platform("grid5000-3")
    assert len(g3.metahosts) == 3 and len(g3.routes) == 6
    viola = load_platform("viola")
    assert [m.name for m in viola.metahosts] == ["FH-BRS", "FZJ"]
    assert viola.route("FH-BRS", "FZJ").latency == pytest.approx(862e-6)
    assert viola.route("FZJ", "FH-BRS").latency == pytest.approx(879e-6)
    assert viola.route("FZJ", "FH-BRS").sharing == PER_FLOW
    assert [m.nodes for m in load_platform("lg-20-40").metahosts] == [20, 40]
    presto = load_platform("presto-2nic-16-16")
    assert [(m.nodes, m.nics) for m in presto.metahosts] == [(16, 2), (16, 2)]
    assert presto.route("site1", "site2").latency == pytest.approx(10e-3)
    assert load_platform("presto-2nic-32").metahosts[0].nodes == 32


BAD = {
    "not toml": ("[metahost.a\nnodes=1", "not valid TOML"),
    "no metahost": ("[wan]\nbandwidth='1Gbps'\nlatency='1ms'\n", "no metahost defined"),
    "missing nodes": ("[metahost.a]\nbandwidth='1Gbps'\nlatency='1ms'\n", "missing 'nodes'"),
    "zero nodes": ("[metahost.a]\nnodes=0\nbandwidth='1Gbps'\nlatency='1ms'\n",
                   "must be a positive integer"),
    "bad unit": ("[metahost.a]\nnodes=1\nbandwidth='fast'\nlatency='1ms'\n", "bandwidth 'fast'"),
    "typo key": ("[metahost.a]\nnodes=1\nbandwith='1Gbps'\nlatency='1ms'\n",
                 "unknown key 'bandwith'"),
    "bad name": ("[metahost.'2nd site']\nnodes=1\nbandwidth='1Gbps'\nlatency='1ms'\n",
                 "metahost names start with a letter"),
    "no wan": (TWO_SITES.split("[wan]")[0], "missing [wan] table"),
    "unknown pair": (TWO_SITES + "[[wan.pair]]\nmetahosts=['siteA','siteC']\nlatency='9ms'\n",
                     "unknown metahost 'siteC'"),
    "wan too fast": (TWO_SITES.replace('latency = "7.8ms"', 'latency = "0.01ms"'),
                     "must exceed half the node latencies"),
    "bad sharing": (TWO_SITES + "sharing = 'sometimes'\n", "must be one of shared, per-flow"),
    "zero nics": ("[metahost.a]\nnodes=1\nbandwidth='1Gbps'\nlatency='1ms'\nnics=0\n",
                  "metahost.a.nics: must be a positive integer"),
    "bad fairness": ("[platform]\nflow_fairness='fast'\n[metahost.a]\nnodes=1\nbandwidth='1Gbps'\n"
                     "latency='1ms'\n", "platform.flow_fairness: must be one of rtt, equal"),
    "bad nic bandwidth": ("[metahost.a]\nnodes=1\nbandwidth='1Gbps'\nlatency='1ms'\nnics=2\n"
                          "nic_bandwidth='quick'\n", "nic_bandwidth"),
}


def test_multirail_xml_caps_each_transfer_and_sums_the_nics():
    text = ("[metahost.a]\nnodes=3\nbandwidth='2Gbps'\nlatency='0.1ms'\nnics=2\n"
            "nic_bandwidth='1Gbps'\n[metahost.b]\nnodes=2\nbandwidth='1Gbps'\nlatency='0.1ms'\n"
            "[wan]\nbandwidth='10Gbps'\nlatency='5ms'\n")
    platform = parse_platform(text, source="t.toml", name="t")
    a, b = platform.metahosts
    assert (a.nics, a.nic_bandwidth, a.bandwidth) == (2, 125e6, 250e6)
    assert (b.nics, b.multirail) == (1, False)
    clusters = {c.get("id"): c for c in ET.fromstring(platform_xml(platform)).iter("cluster")}
    # two NICs of 1 Gbps: 2 Gbps per node and direction, one transfer at most `bandwidth`
    assert units.bandwidth(clusters["a"].get("bw")) == pytest.approx(250e6)
    assert clusters["a"].get("sharing_policy") == "SPLITDUPLEX"
    assert units.bandwidth(clusters["a"].get("bb_bw")) == pytest.approx(250e6)
    assert clusters["a"].get("bb_sharing_policy") == "FATPIPE"
    # a single-NIC metahost is written as before: no backbone
    assert clusters["b"].get("bb_bw") is None and units.bandwidth(clusters["b"].get("bw")) == 125e6


def test_flow_fairness_reaches_the_simulator_settings():
    """rtt (the default) runs CM02 as it is; equal adds weight-S (test_testbed_fairness.py
    measures what each does); the generated XML names the settings it needs."""
    from gridscope.testbed.run import sim_config

    site = "[metahost.a]\nnodes=1\nbandwidth='1Gbps'\nlatency='1ms'\n"
    rtt = parse_platform(site, source="t.toml", name="t")
    equal = parse_platform("[platform]\nflow_fairness='equal'\n" + site, source="t.toml", name="t")
    assert rtt.flow_fairness == "rtt" and equal.flow_fairness == "equal"
    assert [c for c in sim_config(rtt) if "weight-S" in c] == []
    assert "--cfg=network/weight-S:1e9" in sim_config(equal)
    assert "cfg=network/weight-S:1e9" in platform_xml(equal)
    assert "weight-S" not in platform_xml(rtt)


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_toml_is_one_clear_line(case, tmp_path):
    text, message = BAD[case]
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(GridscopeError) as err:
        load_platform(path)
    assert message in err.value.line()
    proc = run_gridscope("platform", path, "-o", tmp_path / "out.xml", check=False)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"gridscope: {path}:"), proc.stderr
    assert message in lines[0]
    assert not (tmp_path / "out.xml").exists()


def test_unknown_preset_names_the_presets():
    proc = run_gridscope("platform", "grid6000", check=False)
    assert proc.returncode == 2
    assert "not a platform preset" in proc.stderr and "viola" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_platform_command_writes_xml(tmp_path):
    out = tmp_path / "viola.xml"
    run_gridscope("platform", "viola", "-o", out)
    text = out.read_text()
    assert "Generated by gridscope from preset viola" in text
    assert 'cluster id="FZJ"' in text and 'sharing_policy="FATPIPE"' in text
    listing = run_gridscope("platform", "--list").stdout
    assert "grid5000-2" in listing and "lg-20-40" in listing


def test_docs_describe_every_preset():
    from gstest import REPO

    text = (REPO / "docs" / "testbed.md").read_text()
    for name in preset_names():
        assert f"| `{name}` |" in text, f"docs/testbed.md lacks a row for preset {name}"


# ---------------------------------------------------------------- packet network (ns-3)

PACKET = '[platform]\nnetwork = "packet"\n' + TWO_SITES.replace("cores = 2\n", "")


def test_packet_xml_has_one_zone_per_metahost_and_one_link_per_hop():
    """SimGrid's ns-3 binding turns each one-link route into a point-to-point link and
    ignores longer ones; a <cluster> would add a CSMA bus between its nodes. So: a zone per
    metahost (the collector names metahosts after it), host -> router routes of one link,
    one full-duplex WAN link per pair between the routers."""
    p = parse_platform(PACKET, "two.toml", "two")
    assert p.packet and p.network == "packet"
    root = ET.fromstring(platform_xml(p))
    assert list(root.iter("cluster")) == []
    top = root.find("zone")
    assert top.get("id") == "metacomputer"
    zones = {z.get("id"): z for z in top.findall("zone")}
    assert set(zones) == {"siteA", "siteB"}
    a = zones["siteA"]
    assert [h.get("id") for h in a.findall("host")] == [f"siteA-{i}" for i in range(4)]
    assert [r.get("id") for r in a.findall("router")] == ["siteA-router"]
    links = {l.get("id"): l for l in root.iter("link")}
    for route in a.findall("route"):
        hops = [c.get("id") for c in route.findall("link_ctn")]
        assert route.get("dst") == "siteA-router" and hops == [f"{route.get('src')}-link"]
    assert len(a.findall("route")) == 4
    # half the node-to-node latency per host link, the node bandwidth
    assert units.duration(links["siteB-0-link"].get("latency")) == pytest.approx(25e-6)
    assert units.bandwidth(links["siteB-0-link"].get("bandwidth")) == pytest.approx(125e6)
    wan = [z for z in top.findall("zoneRoute")]
    assert [(z.get("src"), z.get("dst"), z.get("gw_src"), z.get("gw_dst")) for z in wan] == [
        ("siteA", "siteB", "siteA-router", "siteB-router")]
    assert wan[0].get("symmetrical") is None  # one link for both directions
    wan_link = links[wan[0].find("link_ctn").get("id")]
    assert units.duration(wan_link.get("latency")) == pytest.approx(7.8e-3 - 0.05e-3 - 0.025e-3)
    assert units.bandwidth(wan_link.get("bandwidth")) == pytest.approx(17e6)


def test_packet_network_runs_ns3_with_the_settings_in_the_environment():
    from gridscope.testbed.run import sim_config

    p = parse_platform(PACKET + '[packet]\ncongestion = "bic"\ninitial_window = 3\n'
                       'min_rto = "200ms"\nwindow = "128KiB"\nsegment_size = 1448\nqueue = 500\n',
                       "two.toml", "two")
    assert "--cfg=network/model:ns-3" in sim_config(p)
    assert not [c for c in sim_config(p) if "CM02" in c]
    assert p.settings.ns3_attributes() == [
        "ns3::TcpSocket::SndBufSize=1073741824",  # always: SimGrid cuts longer messages short
        "ns3::TcpL4Protocol::SocketType=ns3::TcpBic", "ns3::TcpSocket::SegmentSize=1448",
        "ns3::TcpSocket::InitialCwnd=3", "ns3::TcpSocketBase::MinRto=200000us",
        "ns3::TcpSocket::RcvBufSize=131072", "ns3::FqCoDelQueueDisc::MaxSize=500p"]
    assert p.settings.ns3_env() in platform_xml(p)
    plain = parse_platform(PACKET, "two.toml", "two")
    assert plain.settings.ns3_attributes() == ["ns3::TcpSocket::SndBufSize=1073741824"]


def test_packet_presets_are_the_flow_presets_on_the_packet_network():
    for name in ("lg-30-30", "lg-20-40"):
        flow, packet = load_platform(name), load_platform(f"{name}-packet")
        assert packet.packet and not flow.packet
        assert packet.metahosts == flow.metahosts and packet.routes == flow.routes
        assert packet.settings.summary() == ("congestion bic, segment_size 1448 B, "
                                             "initial_window 3, min_rto 200 ms, window 131072 B")


PACKET_BAD = {
    "bad network": (TWO_SITES.replace("[metahost.siteA]", "[platform]\nnetwork = 'wire'\n"
                                      "[metahost.siteA]"), "platform.network: must be one of"),
    "settings on flow": (TWO_SITES + "[packet]\ninitial_window = 3\n",
                         "[packet] settings need [platform] network = \"packet\""),
    "unknown setting": (PACKET + "[packet]\ninit_window = 3\n", "unknown key 'init_window'"),
    "bad congestion": (PACKET + "[packet]\ncongestion = 'fast'\n",
                       "packet.congestion: must be one of newreno, cubic"),
    "bad window": (PACKET + "[packet]\nwindow = 'big'\n", "packet.window: 'big' is not a byte"),
    "zero queue": (PACKET + "[packet]\nqueue = 0\n", "packet.queue: must be a positive integer"),
    "bad rto": (PACKET + "[packet]\nmin_rto = 'soon'\n", "packet.min_rto: latency 'soon'"),
    "cores": (PACKET.replace("nodes = 2\n", "nodes = 2\ncores = 2\n"),
              "metahost.siteB.cores: the packet network takes one rank per node"),
    "loopback": (PACKET.replace("nodes = 2\n", "nodes = 2\nloopback_latency = '1us'\n"),
                 "metahost.siteB.loopback_latency: the packet network has no loopback"),
    "multirail": (PACKET.replace("nodes = 2\n", "nodes = 2\nnics = 2\n"),
                  "metahost.siteB.nics: multi-rail nodes need the flow network"),
    "fairness": (PACKET.replace('network = "packet"', 'network = "packet"\nflow_fairness = "rtt"'),
                 "platform.flow_fairness: the packet network has no flow fairness"),
    "per-flow wan": (PACKET + "sharing = 'per-flow'\n",
                     "wan.sharing: the packet network has no per-flow WAN limit"),
    "asymmetric wan": (PACKET + "[[wan.pair]]\nfrom = 'siteB'\nto = 'siteA'\nlatency = '9ms'\n",
                       "same bandwidth and latency both ways between siteA and siteB"),
}


@pytest.mark.parametrize("case", sorted(PACKET_BAD))
def test_what_the_packet_network_cannot_do_is_one_clear_line(case, tmp_path):
    text, message = PACKET_BAD[case]
    path = tmp_path / "bad.toml"
    path.write_text(text)
    proc = run_gridscope("platform", path, check=False)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"gridscope: {path}:"), proc.stderr
    assert message in lines[0]
