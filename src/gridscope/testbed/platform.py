"""A metacomputer platform: metahosts (clusters) joined by wide-area links.

Figures are *end to end*, as a ping-pong measures them (that is how the seeds report
them): ``latency`` inside a metahost is node to node, ``[wan].latency`` is node on one
metahost to node on the other. `simgrid_xml` splits them over SimGrid's links.

TOML format (one table per metahost, in rank order)::

    [platform]                      # optional
    description = "two sites"
    network = "flow"                # optional: "flow" (SimGrid's CM02) or "packet" (ns-3)
    flow_fairness = "rtt"           # optional: "rtt" (TCP-like) or "equal", see below
    [metahost.siteA]
    nodes = 4
    cores = 1                       # optional: ranks a node takes before the next one
    speed = "1Gf"                   # optional: flop/s per core (smpi_execute_flops)
    bandwidth = "894Mbps"           # node to node inside the metahost
    latency = "0.1ms"
    loopback_bandwidth = "4Gbps"    # optional: ranks on the same node (default: as above)
    loopback_latency = "0.02ms"
    nics = 2                        # optional (1): links from each node to the site's switch
    nic_bandwidth = "1Gbps"         # optional: one NIC's bandwidth (default: bandwidth)
    [wan]                           # between metahosts
    bandwidth = "136Mbps"
    latency = "7.8ms"
    sharing = "shared"              # optional: "shared" backbone or "per-flow" limit
    [[wan.pair]]                    # optional overrides: metahosts = [a, b] (both ways)
    from = "siteB"                  # or from/to (one direction)
    to = "siteA"
    latency = "8.1ms"
    [packet]                        # optional, packet network only (packet_settings.py)
    initial_window = 3              # TCP and queue settings handed to ns-3

``network = "packet"`` simulates every message as a TCP connection in ns-3 (packets,
queues, slow start, retransmissions) instead of a flow of SimGrid's analytic CM02 model
(docs/testbed.md, "Packet-level network"). It takes the same figures; what SimGrid's ns-3
binding cannot model is refused when the file is read: ranks sharing a node (cores > 1,
loopback_*), multi-rail nodes, flow_fairness, per-flow WAN sharing, and a WAN pair whose
two directions differ.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from gridscope.errors import GridscopeError
from gridscope.testbed import packet_settings
from gridscope.testbed import units

SHARED = "shared"
PER_FLOW = "per-flow"
SHARING_POLICIES = (SHARED, PER_FLOW)
# How concurrent flows share a link (docs/testbed.md, "Flow fairness"): "rtt" in inverse
# proportion to their round-trip times, as TCP does and SimGrid's CM02 model by default;
# "equal" regardless of latency, as flow simulators without a TCP model do.
RTT_FAIR = "rtt"
EQUAL_FAIR = "equal"
FLOW_FAIRNESS = (RTT_FAIR, EQUAL_FAIR)
# How messages cross the network: "flow", SimGrid's analytic CM02 model (a message is a
# flow sharing links by max-min); "packet", ns-3 (a message is a TCP connection of packets).
FLOW_NETWORK = "flow"
PACKET_NETWORK = "packet"
NETWORKS = (FLOW_NETWORK, PACKET_NETWORK)

DEFAULT_SPEED = "1Gf"
_NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_.]*(?:-[A-Za-z0-9_.]+)*$")

_PLATFORM_KEYS = {"description", "name", "flow_fairness", "network"}
_METAHOST_KEYS = {"nodes", "cores", "speed", "bandwidth", "latency",
                  "loopback_bandwidth", "loopback_latency", "nics", "nic_bandwidth"}
_WAN_KEYS = {"bandwidth", "latency", "sharing", "pair"}
_PAIR_KEYS = {"metahosts", "from", "to", "bandwidth", "latency", "sharing"}


@dataclass(frozen=True)
class Metahost:
    name: str
    nodes: int
    cores: int
    speed: float  # flop/s per core
    bandwidth: float  # bytes/s, node to node
    latency: float  # s, node to node
    loopback_bandwidth: float  # bytes/s, two ranks on one node
    loopback_latency: float
    nics: int = 1  # links from each node to the metahost's switch
    nic_bandwidth: float = 0.0  # bytes/s of one NIC (0: as `bandwidth`)

    @property
    def multirail(self) -> bool:
        return self.nics > 1 or self.nic_bandwidth not in (0.0, self.bandwidth)

    @property
    def node_bandwidth(self) -> float:
        """What all NICs of a node carry together, per direction."""
        return self.nics * (self.nic_bandwidth or self.bandwidth)

    def host(self, index: int) -> str:
        """Hostnames are the metahost name and the node number: ``siteA-0``."""
        return f"{self.name}-{index}"


@dataclass(frozen=True)
class WanRoute:
    """One direction between two metahosts, figures end to end."""

    src: str
    dst: str
    bandwidth: float
    latency: float
    sharing: str


@dataclass(frozen=True)
class Platform:
    name: str
    source: str  # preset name or file path
    description: str
    metahosts: tuple[Metahost, ...]
    routes: tuple[WanRoute, ...]  # every ordered pair of distinct metahosts
    flow_fairness: str = RTT_FAIR  # FLOW_FAIRNESS
    network: str = FLOW_NETWORK  # NETWORKS
    settings: packet_settings.PacketSettings = packet_settings.PacketSettings()  # packet only

    @property
    def packet(self) -> bool:
        return self.network == PACKET_NETWORK

    def metahost(self, name: str) -> Metahost:
        for mh in self.metahosts:
            if mh.name == name:
                return mh
        raise KeyError(name)

    def route(self, src: str, dst: str) -> WanRoute:
        for r in self.routes:
            if r.src == src and r.dst == dst:
                return r
        raise KeyError((src, dst))


# ---------------------------------------------------------------- presets

def preset_names() -> list[str]:
    folder = resources.files("gridscope.testbed") / "presets"
    return sorted(p.name[: -len(".toml")] for p in folder.iterdir() if p.name.endswith(".toml"))


def _preset_text(name: str) -> str:
    return (resources.files("gridscope.testbed") / "presets" / f"{name}.toml").read_text()


def load_platform(spec: str | os.PathLike) -> Platform:
    """A preset name (``grid5000-2``) or a TOML file."""
    text = os.fspath(spec)
    path = Path(text)
    if path.is_file():
        try:
            content = path.read_text()
        except (OSError, UnicodeDecodeError) as err:
            raise GridscopeError(path, f"cannot read platform file: {err}") from None
        return parse_platform(content, source=text, name=path.stem)
    if text in preset_names():
        return parse_platform(_preset_text(text), source=f"preset {text}", name=text)
    if text.endswith(".toml") or os.sep in text:
        raise GridscopeError(path, "platform file does not exist")
    raise GridscopeError(text, "not a platform preset (" + ", ".join(preset_names())
                         + ") nor a TOML file")


# ---------------------------------------------------------------- parsing

def parse_platform(content: str, source: str, name: str) -> Platform:
    try:
        doc = tomllib.loads(content)
    except tomllib.TOMLDecodeError as err:
        raise GridscopeError(source, f"not valid TOML: {err}") from None
    return _Parser(source).platform(doc, name)


class _Parser:
    def __init__(self, source: str):
        self.source = source

    def fail(self, where: str, problem: str) -> GridscopeError:
        return GridscopeError(self.source, f"{where}: {problem}")

    def check_keys(self, table: dict, allowed: set[str], where: str) -> None:
        unknown = sorted(set(table) - allowed)
        if unknown:
            raise self.fail(where, f"unknown key {unknown[0]!r} (allowed: "
                            + ", ".join(sorted(allowed)) + ")")

    def table(self, value: object, where: str) -> dict:
        if not isinstance(value, dict):
            raise self.fail(where, "must be a table")
        return value

    def figure(self, table: dict, key: str, where: str, parse, required: bool = True,
               default: float | None = None) -> float:
        if key not in table:
            if required:
                raise self.fail(where, f"missing {key!r}")
            return default  # type: ignore[return-value]
        try:
            value = parse(table[key])
        except units.UnitError as err:
            raise self.fail(f"{where}.{key}", str(err)) from None
        if value <= 0:
            raise self.fail(f"{where}.{key}", "must be positive")
        return value

    def count(self, table: dict, key: str, where: str, default: int | None = None) -> int:
        if key not in table:
            if default is None:
                raise self.fail(where, f"missing {key!r}")
            return default
        value = table[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise self.fail(f"{where}.{key}", f"must be a positive integer, not {value!r}")
        return value

    def platform(self, doc: dict, name: str) -> Platform:
        self.check_keys(doc, {"platform", "metahost", "wan", "packet"}, "top level")
        meta = self.table(doc.get("platform", {}), "platform")
        self.check_keys(meta, _PLATFORM_KEYS, "platform")
        if "metahost" not in doc or not self.table(doc["metahost"], "metahost"):
            raise self.fail("metahost", "no metahost defined (add a [metahost.NAME] table)")
        metahosts = tuple(self.metahost(mh_name, self.table(t, f"metahost.{mh_name}"))
                          for mh_name, t in doc["metahost"].items())
        routes = self.routes(doc.get("wan"), metahosts)
        fairness = meta.get("flow_fairness", RTT_FAIR)
        if fairness not in FLOW_FAIRNESS:
            raise self.fail("platform.flow_fairness", f"must be one of {', '.join(FLOW_FAIRNESS)}, "
                            f"not {fairness!r}")
        network = meta.get("network", FLOW_NETWORK)
        if network not in NETWORKS:
            raise self.fail("platform.network", f"must be one of {', '.join(NETWORKS)}, "
                            f"not {network!r}")
        settings = self.packet_settings(doc.get("packet"), network)
        if network == PACKET_NETWORK:
            self.check_packet(doc, meta, routes)
        return Platform(name=str(meta.get("name", name)), source=self.source,
                        description=str(meta.get("description", "")),
                        metahosts=metahosts, routes=routes, flow_fairness=fairness,
                        network=network, settings=settings)

    def packet_settings(self, table: object, network: str) -> packet_settings.PacketSettings:
        if table is None:
            return packet_settings.PacketSettings()
        table = self.table(table, "packet")
        if network != PACKET_NETWORK:
            raise self.fail("packet", '[packet] settings need [platform] network = "packet" '
                            "(the flow network has no TCP or queues)")
        self.check_keys(table, packet_settings.SETTING_KEYS, "packet")
        try:
            return packet_settings.parse_settings(table)
        except packet_settings.SettingError as err:
            key, problem = err.args
            raise self.fail(f"packet.{key}", problem) from None

    def check_packet(self, doc: dict, meta: dict, routes: tuple[WanRoute, ...]) -> None:
        """Refuse what SimGrid's ns-3 binding cannot simulate (it would crash or be wrong)."""
        if "flow_fairness" in meta:
            raise self.fail("platform.flow_fairness", "the packet network has no flow fairness "
                            "setting: TCP decides how connections share a link")
        for name, table in doc["metahost"].items():
            where = f"metahost.{name}"
            for key in ("loopback_bandwidth", "loopback_latency"):
                if key in table:
                    raise self.fail(f"{where}.{key}", "the packet network has no loopback: "
                                    "SimGrid's ns-3 binding ends messages inside a node at once")
            if table.get("cores", 1) != 1:
                raise self.fail(f"{where}.cores", "the packet network takes one rank per "
                                "node (SimGrid's ns-3 binding ends messages inside a node at "
                                "once); give cores = 1")
            for key in ("nics", "nic_bandwidth"):
                if key in table and table[key] != 1:
                    raise self.fail(f"{where}.{key}", "multi-rail nodes need the flow network: "
                                    "the packet network gives each node one link")
        wan = doc.get("wan", {})
        for i, pair in enumerate([wan] + list(wan.get("pair", []))):
            where = "wan" if i == 0 else f"wan.pair[{i - 1}]"
            if pair.get("sharing", SHARED) != SHARED:
                raise self.fail(f"{where}.sharing", "the packet network has no per-flow WAN "
                                "limit: its links carry packets of every connection")
        self.check_symmetric_wan(routes)

    def check_symmetric_wan(self, routes: tuple[WanRoute, ...]) -> None:
        figures = {(r.src, r.dst): (r.bandwidth, r.latency) for r in routes}
        for (a, b), fig in figures.items():
            if figures[(b, a)] != fig:
                raise self.fail("wan", f"the packet network needs the same bandwidth and "
                                f"latency both ways between {a} and {b} (an ns-3 "
                                "point-to-point link has one of each)")

    def metahost(self, name: str, table: dict) -> Metahost:
        where = f"metahost.{name}"
        if not _NAME_RE.match(name):
            raise self.fail(where, "metahost names start with a letter and hold letters, "
                            "digits, '_', '.' and single '-'")
        self.check_keys(table, _METAHOST_KEYS, where)
        bandwidth = self.figure(table, "bandwidth", where, units.bandwidth)
        latency = self.figure(table, "latency", where, units.duration)
        return Metahost(
            name=name,
            nodes=self.count(table, "nodes", where),
            cores=self.count(table, "cores", where, default=1),
            speed=self.figure(table, "speed", where, units.speed, required=False,
                              default=units.speed(DEFAULT_SPEED)),
            bandwidth=bandwidth,
            latency=latency,
            loopback_bandwidth=self.figure(table, "loopback_bandwidth", where,
                                           units.bandwidth, required=False, default=bandwidth),
            loopback_latency=self.figure(table, "loopback_latency", where, units.duration,
                                         required=False, default=latency),
            nics=self.count(table, "nics", where, default=1),
            nic_bandwidth=self.figure(table, "nic_bandwidth", where, units.bandwidth,
                                      required=False, default=bandwidth),
        )

    def sharing(self, table: dict, where: str, default: str) -> str:
        value = table.get("sharing", default)
        if value not in SHARING_POLICIES:
            raise self.fail(f"{where}.sharing", f"must be one of {', '.join(SHARING_POLICIES)}"
                            f", not {value!r}")
        return value

    def routes(self, wan: object, metahosts: tuple[Metahost, ...]) -> tuple[WanRoute, ...]:
        names = [mh.name for mh in metahosts]
        if wan is None:
            if len(metahosts) > 1:
                raise self.fail("wan", "missing [wan] table (bandwidth and latency between "
                                "metahosts)")
            return ()
        wan = self.table(wan, "wan")
        self.check_keys(wan, _WAN_KEYS, "wan")
        default_bw = self.figure(wan, "bandwidth", "wan", units.bandwidth)
        default_lat = self.figure(wan, "latency", "wan", units.duration)
        default_sharing = self.sharing(wan, "wan", SHARED)
        figures = {(a, b): (default_bw, default_lat, default_sharing)
                   for a in names for b in names if a != b}
        pairs = wan.get("pair", [])
        if not isinstance(pairs, list):
            raise self.fail("wan.pair", "must be an array of tables ([[wan.pair]])")
        for i, pair in enumerate(pairs):
            where = f"wan.pair[{i}]"
            pair = self.table(pair, where)
            self.check_keys(pair, _PAIR_KEYS, where)
            for direction in self.pair_directions(pair, names, where):
                bw, lat, sharing = figures[direction]
                figures[direction] = (
                    self.figure(pair, "bandwidth", where, units.bandwidth, False, bw),
                    self.figure(pair, "latency", where, units.duration, False, lat),
                    self.sharing(pair, where, sharing),
                )
        by_name = {mh.name: mh for mh in metahosts}
        routes = []
        for (a, b), (bw, lat, sharing) in figures.items():
            inside = (by_name[a].latency + by_name[b].latency) / 2
            if lat <= inside:
                raise self.fail("wan", f"latency {a} -> {b} ({lat * 1e6:g} us) must exceed "
                                f"half the node latencies of both metahosts ({inside * 1e6:g} us)")
            routes.append(WanRoute(a, b, bw, lat, sharing))
        return tuple(routes)

    def pair_directions(self, pair: dict, names: list[str], where: str) -> list[tuple[str, str]]:
        if "metahosts" in pair:
            if "from" in pair or "to" in pair:
                raise self.fail(where, "give either metahosts = [a, b] or from/to, not both")
            ends = pair["metahosts"]
            if not (isinstance(ends, list) and len(ends) == 2):
                raise self.fail(f"{where}.metahosts", "must list two metahosts")
            a, b = ends
            directions = [(a, b), (b, a)]
        elif "from" in pair and "to" in pair:
            directions = [(pair["from"], pair["to"])]
        else:
            raise self.fail(where, "needs metahosts = [a, b] or from = a and to = b")
        for a, b in directions:
            for end in (a, b):
                if end not in names:
                    raise self.fail(where, f"unknown metahost {end!r} (defined: "
                                    + ", ".join(names) + ")")
            if a == b:
                raise self.fail(where, "a WAN pair needs two different metahosts")
        return directions
