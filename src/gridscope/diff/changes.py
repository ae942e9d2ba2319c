"""The largest changes of a difference experiment, per metric and call path."""

from __future__ import annotations

import pandas as pd

from gridscope.cube.model import CALLPATH, METRIC, UOM_SECONDS, VALUE, Experiment, walk_metrics
from gridscope.diff.summary import percent_of

TIME_ROOT = "time"


def largest_changes(diff: Experiment, base_total_s: float, top: int = 20) -> list[dict]:
    """Time metrics' changes summed over locations, largest magnitude first.

    Values are exclusive in the metric tree (``mpi`` excludes the wait states under it), so
    every second appears in exactly one row. Only the `time` tree counts when there is one:
    other trees in seconds (delay costs, critical path, ...) measure the same seconds again.
    """
    roots = [m for m in diff.metrics if m.uniq_name == TIME_ROOT] or list(diff.metrics)
    names = {m.uniq_name: m.disp_name or m.uniq_name for m, _ in walk_metrics(tuple(roots))
             if m.uom == UOM_SECONDS}
    sev = diff.severities[diff.severities[METRIC].isin(names)]
    if sev.empty:
        return []
    summed = sev.groupby([METRIC, CALLPATH], as_index=False, sort=False)[VALUE].sum()
    summed = summed[summed[VALUE] != 0]
    summed = summed.reindex(summed[VALUE].abs().sort_values(ascending=False).index).head(top)
    return [{"metric": row[METRIC], "display": names[row[METRIC]], "callpath": row[CALLPATH],
             "seconds": float(row[VALUE]),
             "percent_of_base": percent_of(float(row[VALUE]), base_total_s)}
            for row in summed.to_dict("records")]


def per_rank(diff: Experiment, metric: str) -> pd.Series:
    """A metric's change per rank (summed over call paths)."""
    sev = diff.severities[diff.severities[METRIC] == metric]
    return sev.groupby("rank")[VALUE].sum()
