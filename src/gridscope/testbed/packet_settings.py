"""TCP and queue settings of a packet-level platform (``[platform] network = "packet"``),
handed to ns-3 as attribute defaults.

SimGrid's ns-3 binding sets a few TCP defaults itself (1000-byte segments, an ACK for every
segment, no timestamps); ns-3 3.37 chooses the rest (CUBIC, a 10-segment initial window,
1 s minimum RTO, 128 KiB socket buffers, and in front of every link an FQ-CoDel queue of
10240 packets). A ``[packet]`` table overrides them::

    [packet]
    congestion = "bic"          # ns-3 TCP variant (newreno, cubic, bic, highspeed, ...)
    segment_size = 1460         # bytes of payload per segment (MSS)
    initial_window = 3          # segments
    min_rto = "200ms"           # lower bound of the retransmission timeout
    window = "128KiB"           # receive buffer: the largest window a receiver advertises
    delayed_ack = 2             # segments acknowledged by one ACK
    queue = 1000                # packets each link direction holds before it drops

ns-3 reads attribute defaults from the environment variable ``NS_ATTRIBUTE_DEFAULT``
(``name=value;name=value``) when it builds each object, after SimGrid's own defaults, so
the values given here win over SimGrid's.

The send buffer is always made larger than any message (SEND_BUFFER): SimGrid 3.32 closes
the receiver's sockets once the whole message sits in the sender's buffer, so a message
larger than that buffer is cut short and aborts the run ("total_bytes (=131088) is not
sent_bytes(=30000)"). In ns-3 as in Linux the send buffer also bounds the data in flight;
with it out of the way, the receive buffer (``window``) is the bound.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields

from gridscope.testbed import units

NS3_ENV = "NS_ATTRIBUTE_DEFAULT"
SEND_BUFFER = 1 << 30  # bytes; ns-3's buffers hold no payload, so this costs no memory

# TCP variants ns-3 3.37 ships (TcpL4Protocol::SocketType takes ns3::Tcp<Name>).
CONGESTION = {"newreno": "NewReno", "cubic": "Cubic", "bic": "Bic", "highspeed": "HighSpeed",
              "htcp": "Htcp", "scalable": "Scalable", "vegas": "Vegas", "veno": "Veno",
              "illinois": "Illinois", "hybla": "Hybla", "yeah": "Yeah"}

_SIZE_RE = re.compile(r"^(?P<num>[0-9]+)\s*(?P<prefix>Ki|Mi|k|M)?B$")
_SIZE_PREFIX = {"": 1, "k": 1000, "M": 1000**2, "Ki": 1024, "Mi": 1024**2}


@dataclass(frozen=True)
class PacketSettings:
    """What the platform sets; None leaves ns-3's (or SimGrid's) default."""

    congestion: str | None = None  # a CONGESTION key
    segment_size: int | None = None  # bytes
    initial_window: int | None = None  # segments
    min_rto: float | None = None  # seconds
    window: int | None = None  # bytes: receive buffer
    delayed_ack: int | None = None  # segments per ACK
    queue: int | None = None  # packets per link direction (FQ-CoDel's limit)

    def ns3_attributes(self) -> list[str]:
        """``name=value`` for NS_ATTRIBUTE_DEFAULT, in a fixed order."""
        return [f"ns3::TcpSocket::SndBufSize={SEND_BUFFER}"] + [
            f"{attribute}={render(getattr(self, key))}"
            for key, (attribute, render) in _NS3_ATTRIBUTES.items()
            if getattr(self, key) is not None]

    def summary(self) -> str:
        """The settings given, for `gridscope platform --list`."""
        shown = {"min_rto": lambda v: f"{v * 1e3:g} ms", "window": lambda v: f"{v} B",
                 "segment_size": lambda v: f"{v} B"}
        return ", ".join(f"{f.name} {shown.get(f.name, str)(getattr(self, f.name))}"
                         for f in fields(self) if getattr(self, f.name) is not None)

    def ns3_env(self) -> str:
        return ";".join(self.ns3_attributes())


# each setting's ns-3 attribute and how its value is written there
_NS3_ATTRIBUTES = {
    "congestion": ("ns3::TcpL4Protocol::SocketType", lambda v: f"ns3::Tcp{CONGESTION[v]}"),
    "segment_size": ("ns3::TcpSocket::SegmentSize", str),
    "initial_window": ("ns3::TcpSocket::InitialCwnd", str),
    "min_rto": ("ns3::TcpSocketBase::MinRto", lambda v: f"{v * 1e6:.10g}us"),
    "window": ("ns3::TcpSocket::RcvBufSize", str),
    "delayed_ack": ("ns3::TcpSocket::DelAckCount", str),
    "queue": ("ns3::FqCoDelQueueDisc::MaxSize", lambda v: f"{v}p"),
}

SETTING_KEYS = {f.name for f in fields(PacketSettings)}


class SettingError(ValueError):
    """A bad value in [packet]; args: (key, problem)."""


def _count(key: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise SettingError(key, f"must be a positive integer, not {value!r}")
    return value


def data_size(key: str, value: object) -> int:
    """Bytes from an integer or a string such as ``"128KiB"``."""
    if isinstance(value, int) and not isinstance(value, bool):
        return _count(key, value)
    match = _SIZE_RE.match(str(value).strip())
    if not match:
        raise SettingError(key, f"{value!r} is not a byte count such as 131072 or \"128KiB\"")
    return _count(key, int(match["num"]) * _SIZE_PREFIX[match["prefix"] or ""])


def parse_settings(table: dict) -> PacketSettings:
    """A [packet] table (keys already checked against SETTING_KEYS) → settings."""
    values: dict = {}
    if "congestion" in table:
        name = str(table["congestion"]).lower()
        if name not in CONGESTION:
            raise SettingError("congestion", f"must be one of {', '.join(CONGESTION)}, "
                           f"not {table['congestion']!r}")
        values["congestion"] = name
    for key in ("segment_size", "initial_window", "delayed_ack", "queue"):
        if key in table:
            values[key] = _count(key, table[key])
    if "window" in table:
        values["window"] = data_size("window", table["window"])
    if "min_rto" in table:
        try:
            values["min_rto"] = units.duration(table["min_rto"])
        except units.UnitError as err:
            raise SettingError("min_rto", str(err)) from None
        if values["min_rto"] <= 0:
            raise SettingError("min_rto", "must be positive")
    return PacketSettings(**values)
