"""`gridscope.load(OUT)`: an analysis folder as pandas DataFrames."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from gridscope.analysis import names as N
from gridscope.analysis.critical_path_pieces import read_critical_path
from gridscope.analysis.waitstates import read_waitstates
from gridscope.errors import GridscopeError


# Column types of the root-cause tables (names.ROOT_CAUSE_COLUMNS, ...): labels as
# categoricals, seconds as float64.
ROOT_CAUSE_TYPES = {N.CALLPATH: "category", N.METAHOST: "category", N.KIND: "category", N.PATTERN: "category",
                    N.CLASS: "category", N.SHORT_TERM_S: "float64", N.LONG_TERM_S: "float64", N.TOTAL_S: "float64"}
CRITICAL_PATH_TYPES = {N.CALLPATH: "category", N.METAHOST: "category", N.SECONDS: "float64",
                       N.IMBALANCE_S: "float64"}
CAUSE_PAIR_TYPES = {N.CAUSE: "category", N.WAITING: "category", N.SHORT_TERM_S: "float64",
                    N.LONG_TERM_S: "float64"}
PIECE_TYPES = {N.RANK: "int32", N.START_S: "float64", N.END_S: "float64"}


@dataclass(frozen=True)
class Analysis:
    summary: dict
    severities: pd.DataFrame   # metric, callpath, rank, metahost, value (Cube metrics, exclusive)
    p2p: pd.DataFrame          # from, to, bytes, messages, max_rate_Bps, min_transfer_s
    waitstates: pd.DataFrame   # pattern, class, rank, start_s, end_s, severity_s, callpath
    locations: pd.DataFrame    # rank, metahost, node
    # Root causes (docs/root-causes.md); empty tables when the analysis ran without them
    # names.ROOT_CAUSE_COLUMNS: delay costs per cause, largest first
    root_causes: pd.DataFrame = field(default_factory=lambda: _table(None, ROOT_CAUSE_TYPES))
    # names.CRITICAL_PATH_COLUMNS: seconds on the critical path per call path x metahost
    critical_path: pd.DataFrame = field(default_factory=lambda: _table(None, CRITICAL_PATH_TYPES))
    # names.CAUSE_PAIR_COLUMNS: seconds of waiting on metahost `waiting` caused on metahost `cause`
    cause_pairs: pd.DataFrame = field(default_factory=lambda: _table(None, CAUSE_PAIR_TYPES))
    # names.CRITICAL_PIECE_COLUMNS: where the critical path runs, in time order (critical_path_pieces)
    critical_path_timeline: pd.DataFrame = field(default_factory=lambda: _table(None, PIECE_TYPES))

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
    pieces = read_critical_path(folder)
    return Analysis(summary, severities, p2p, waits, exp.locations,
                    root_causes=_table(summary.get(N.ROOT_CAUSES), ROOT_CAUSE_TYPES),
                    critical_path=_table(summary.get(N.CRITICAL_PATH), CRITICAL_PATH_TYPES),
                    cause_pairs=_table(summary.get(N.CAUSE_PAIRS), CAUSE_PAIR_TYPES),
                    critical_path_timeline=_table(None, PIECE_TYPES) if pieces is None else pieces)


def _table(rows: list[dict] | None, types: dict[str, str]) -> pd.DataFrame:
    """ROWS (summary.json objects) as a DataFrame with TYPES' columns, in that order (a key an
    older summary lacks, e.g. imbalance_s, is 0)."""
    rows = rows or []
    columns = {}
    for name, dtype in types.items():
        values = [row.get(name, 0.0 if dtype == "float64" else "") for row in rows]
        columns[name] = pd.Series(values, dtype="object" if dtype == "category" else dtype).astype(dtype)
    return pd.DataFrame(columns)
