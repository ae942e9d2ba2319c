"""How close a prediction is to a recording of the same configuration: total time and the
recording's top wait states (grid + local severity of each pattern), as relative errors."""

from __future__ import annotations

from dataclasses import dataclass

TOP = 3


@dataclass(frozen=True)
class Row:
    what: str
    recorded_s: float
    predicted_s: float

    @property
    def error(self) -> float:
        return abs(self.predicted_s - self.recorded_s) / self.recorded_s if self.recorded_s else 0.0


def pattern_seconds(summary: dict) -> dict[str, float]:
    return {name: float(v.get("grid", 0.0)) + float(v.get("local", 0.0))
            for name, v in summary["patterns"].items()}


def compare(recorded: dict, predicted: dict, top: int = TOP) -> list[Row]:
    """Total time first, then the recording's `top` largest wait states."""
    rows = [Row("total_time", float(recorded["total_time_s"]), float(predicted["total_time_s"]))]
    rec, pred = pattern_seconds(recorded), pattern_seconds(predicted)
    for name in sorted(rec, key=lambda n: -rec[n])[:top]:
        rows.append(Row(name, rec[name], pred.get(name, 0.0)))
    return rows
