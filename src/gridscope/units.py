"""The one unit convention of every text gridscope shows (terminal, report, diff, docs; the
viewer's JavaScript follows the same rules in viewer/static/js/units.js):
times in µs, ms or s; sizes in B, KiB, MiB, GiB; rates in the same units per second.
No "-0": a value that rounds to zero is shown as 0."""

from __future__ import annotations

_BYTE_UNITS = ("B", "KiB", "MiB", "GiB", "TiB")


def seconds_text(seconds: float | None, digits: int = 3) -> str:
    """2.5 s, 12.3 ms, 40.0 µs (DIGITS significant digits); "–" for None."""
    if seconds is None:
        return "–"
    size = abs(seconds)
    if size < 5e-10:  # below a nanosecond: nothing a trace resolves
        return "0 s"
    if size >= 1:
        value, unit = seconds, "s"
    elif size >= 1e-3:
        value, unit = seconds * 1e3, "ms"
    else:
        value, unit = seconds * 1e6, "µs"
    text = f"{value:.{digits}g}" if abs(value) >= 10 ** (digits - 1) else f"{value:#.{digits}g}".rstrip(".")
    if float(text) == 0:
        text = "0"
    return f"{text} {unit}"


def bytes_text(count: float | None, digits: int = 3) -> str:
    """512 B, 3.91 MiB; "–" for None."""
    if count is None:
        return "–"
    value, unit = float(count), _BYTE_UNITS[0]
    for unit in _BYTE_UNITS:
        if abs(value) < 1024 or unit == _BYTE_UNITS[-1]:
            break
        value /= 1024
    if unit == "B":
        return f"{int(round(value))} B"
    text = f"{value:.{digits}g}" if abs(value) >= 10 ** (digits - 1) else f"{value:#.{digits}g}".rstrip(".")
    return f"{text} {unit}"


def rate_text(bytes_per_s: float | None, digits: int = 3) -> str:
    """16.2 MiB/s; "–" for None."""
    return "–" if bytes_per_s is None else bytes_text(bytes_per_s, digits) + "/s"


def share_text(share: float | None, digits: int = 1) -> str:
    """A fraction as a percentage: 0.123 -> "12.3 %"; "–" for None; never "-0.0 %"."""
    if share is None:
        return "–"
    text = f"{100 * share:.{digits}f}"
    if float(text) == 0:
        text = f"{0:.{digits}f}"
    return f"{text} %"
