"""How close a prediction is to a recording of the same configuration: total time and the
recording's top wait states (grid + local severity of each pattern, and with `parts` each
of the two on its own), as relative errors."""

from __future__ import annotations

import math
from dataclasses import dataclass

TOP = 3
PARTS = ("grid", "local")
# below this a severity is nothing (float residue of sums of zero-length waits)
NOTHING_S = 1e-9


@dataclass(frozen=True)
class Row:
    what: str
    recorded_s: float
    predicted_s: float

    @property
    def error(self) -> float:
        """Relative to the recording; a prediction of something the recording lacks is
        infinitely wrong, never 0."""
        if abs(self.recorded_s) > NOTHING_S:
            return abs(self.predicted_s - self.recorded_s) / abs(self.recorded_s)
        return 0.0 if abs(self.predicted_s) <= NOTHING_S else math.inf


def pattern_seconds(summary: dict, part: str | None = None) -> dict[str, float]:
    """Seconds of each pattern: grid + local, or only PART."""
    parts = PARTS if part is None else (part,)
    return {name: sum(float(v.get(p, 0.0)) for p in parts) for name, v in summary["patterns"].items()}


def compare(recorded: dict, predicted: dict, top: int = TOP, parts: bool = False) -> list[Row]:
    """Total time first, then the recording's `top` largest wait states; with PARTS each is
    followed by its grid and local severities (those that are not nothing on both sides)."""
    rows = [Row("total_time", float(recorded["total_time_s"]), float(predicted["total_time_s"]))]
    rec, pred = pattern_seconds(recorded), pattern_seconds(predicted)
    for name in sorted(rec, key=lambda n: -rec[n])[:top]:
        rows.append(Row(name, rec[name], pred.get(name, 0.0)))
        if not parts:
            continue
        for part in PARTS:
            r = pattern_seconds(recorded, part)[name]
            p = pattern_seconds(predicted, part).get(name, 0.0)
            if abs(r) > NOTHING_S or abs(p) > NOTHING_S:
                rows.append(Row(f"{name} ({part})", r, p))
    return rows
