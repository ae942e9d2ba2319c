"""`gridscope.load(OUT)`: an analysis folder as pandas DataFrames."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from gridscope.analysis import names as N
from gridscope.analysis.waitstates import read_waitstates
from gridscope.errors import GridscopeError


@dataclass(frozen=True)
class Analysis:
    summary: dict
    severities: pd.DataFrame   # metric, callpath, rank, metahost, value (Cube metrics, exclusive)
    p2p: pd.DataFrame          # from, to, bytes, messages, max_rate_Bps, min_transfer_s
    waitstates: pd.DataFrame   # pattern, class, rank, start_s, end_s, severity_s, callpath
    locations: pd.DataFrame    # rank, metahost, node

    def matrix(self, column: str = "bytes") -> pd.DataFrame:
        """A metahost x metahost table of one p2p column (rows: from, columns: to)."""
        return self.p2p.pivot_table(index="from", columns="to", values=column, aggfunc="sum", fill_value=0)


def load(folder: str | Path) -> Analysis:
    from gridscope.cube import read_cubex

    folder = Path(folder)
    summary_path = folder / N.SUMMARY_FILE
    try:
        summary = json.loads(summary_path.read_text())
    except OSError as err:
        raise GridscopeError(summary_path, f"not an analysis folder: {err.strerror}") from None
    except json.JSONDecodeError as err:
        raise GridscopeError(summary_path, f"not valid JSON: {err.msg}") from None
    exp = read_cubex(folder / N.PROFILE_FILE)
    hosts = exp.locations.set_index(N.RANK)[N.METAHOST]
    severities = exp.severities.assign(**{N.METAHOST: exp.severities[N.RANK].map(hosts)})
    p2p = pd.DataFrame(summary.get("p2p", []),
                       columns=["from", "to", "bytes", "messages", "max_rate_Bps", "min_transfer_s"])
    waits = read_waitstates(folder)
    if waits is None:
        waits = pd.DataFrame(columns=list(N.WAITSTATE_COLUMNS))
    return Analysis(summary, severities, p2p, waits, exp.locations)
