"""How the collectives benchmarks write sizes and times in their Markdown tables."""

from __future__ import annotations


def size(n: int) -> str:
    """Bytes as the tables show them: 8 B, 64 KiB, 1 MiB."""
    for unit, s in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= s and n % s == 0:
            return f"{n // s} {unit}"
    return f"{n} B"


def ms(x: float | None) -> str:
    """Seconds as milliseconds with two decimals; a dash for a time not measured."""
    return "–" if x is None else f"{x * 1e3:.2f}"
