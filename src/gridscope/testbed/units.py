"""Bandwidth, latency and speed strings as SimGrid writes them ("894Mbps", "0.1ms").

Values are kept in SI base units: bytes per second, seconds, flop per second. The
suffixes follow SimGrid's: ``bps`` are bits, ``Bps`` bytes, k/M/G/T decimal, Ki/Mi/Gi/Ti
binary.
"""

from __future__ import annotations

import re

_NUMBER = r"(?P<num>[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*"
_PREFIX = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
           "Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40}
_TIME = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "ps": 1e-12, "m": 60.0, "h": 3600.0}

_BANDWIDTH_RE = re.compile(_NUMBER + r"(?P<prefix>Ki|Mi|Gi|Ti|k|K|M|G|T)?(?P<unit>bps|Bps)$")
_TIME_RE = re.compile(_NUMBER + r"(?P<unit>s|ms|us|ns|ps|m|h)$")
_SPEED_RE = re.compile(_NUMBER + r"(?P<prefix>Ki|Mi|Gi|Ti|k|K|M|G|T)?(?:f|flops)$")


class UnitError(ValueError):
    """A value that is not a number with a known unit."""


def bandwidth(text: str) -> float:
    """Bytes per second from e.g. ``"894Mbps"`` (bits) or ``"47.3MBps"`` (bytes)."""
    match = _BANDWIDTH_RE.match(str(text).strip())
    if not match:
        raise UnitError(f"bandwidth {text!r} is not a number with a unit such as "
                        "Mbps, Gbps (bits/s) or MBps (bytes/s)")
    value = float(match["num"]) * _PREFIX[match["prefix"] or ""]
    return value / 8.0 if match["unit"] == "bps" else value


def duration(text: str) -> float:
    """Seconds from e.g. ``"7.8ms"`` or ``"30.3us"``."""
    match = _TIME_RE.match(str(text).strip())
    if not match:
        raise UnitError(f"latency {text!r} is not a number with a unit such as s, ms, us")
    return float(match["num"]) * _TIME[match["unit"]]


def speed(text: str) -> float:
    """Flop per second from e.g. ``"1Gf"``."""
    match = _SPEED_RE.match(str(text).strip())
    if not match:
        raise UnitError(f"speed {text!r} is not a number with a unit such as Gf or Mf")
    return float(match["num"]) * _PREFIX[match["prefix"] or ""]


def format_bandwidth(bytes_per_s: float) -> str:
    return f"{bytes_per_s:.10g}Bps"


def format_duration(seconds: float) -> str:
    return f"{seconds:.10g}s"


def format_speed(flops: float) -> str:
    return f"{flops:.10g}f"
