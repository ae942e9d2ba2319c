"""Where the critical path runs on the timeline, and its cause -> wait links.

Process 0 of the engine writes `critical_path.bin`: the stretches of the critical path,
PIECE_DTYPE rows (rank, start, end; seconds since the trace's global offset, as the wait
states), in path order (from the end of the run backward). This module puts them in time
order (joining touching pieces of one rank) and writes them to `critical_path.feather`
(names.CRITICAL_PIECE_COLUMNS). The time per call path stays in the profile
(`critical_path` metric); the timeline needs only where the path is.

Between two consecutive stretches the path moves from the rank that waited to the rank
that delayed it (walking backward, docs/root-causes.md): read forward in time, the end of
stretch k on the delaying rank is the cause, the start of stretch k+1 on the waiting rank
the end of its wait. links() lists those.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from gridscope.analysis import names as N
from gridscope.errors import GridscopeError

PIECES_FILE = "critical_path.bin"
PIECE_DTYPE = np.dtype([("rank", "<u4"), ("pad", "<u4"), ("start", "<f8"), ("end", "<f8")])
assert PIECE_DTYPE.itemsize == 24  # analyzer/src/rootcause.hpp PathPiece
# Pieces of one rank closer than this are one stretch (clock ticks are >= 1 ns).
TOUCH_S = 1e-9
LINK_COLUMNS = ("cause_rank", "cause_s", "waiting_rank", "waiting_s")


def read_pieces(folder: Path, head) -> pd.DataFrame | None:
    """The stretches of the engine's critical path (None when the engine wrote none: root
    causes off, or an engine without them)."""
    path = folder / PIECES_FILE
    if not path.is_file():
        return None
    size = path.stat().st_size
    if size % PIECE_DTYPE.itemsize:
        raise GridscopeError(path, f"truncated: {size} bytes is not a whole number of "
                                   f"{PIECE_DTYPE.itemsize}-byte critical-path rows")
    rows = np.fromfile(path, dtype=PIECE_DTYPE)
    if rows.size and int(rows["rank"].max()) >= int(head.meta["ranks"]):
        raise GridscopeError(path, "engine output refers to an unknown rank")
    if not (np.isfinite(rows["start"]).all() and np.isfinite(rows["end"]).all()
            and (rows["end"] >= rows["start"]).all()):
        raise GridscopeError(path, "engine output holds a critical-path piece that ends before it starts")
    return stretches(rows["rank"].astype(np.int32), rows["start"], rows["end"])


def stretches(rank: np.ndarray, start: np.ndarray, end: np.ndarray) -> pd.DataFrame:
    """Pieces (any order) joined into stretches: time order, a rank's touching pieces as one."""
    order = np.lexsort((rank, end, start))
    rank, start, end = rank[order], start[order], end[order]
    if len(rank):
        new = np.ones(len(rank), dtype=bool)
        new[1:] = (rank[1:] != rank[:-1]) | (start[1:] - end[:-1] > TOUCH_S)
        first = np.flatnonzero(new)
        rank, start, end = rank[first], start[first], np.maximum.reduceat(end, first)
    return pd.DataFrame({N.RANK: rank.astype(np.int32), N.START_S: start.astype(np.float64),
                         N.END_S: end.astype(np.float64)})


def links(path: pd.DataFrame) -> pd.DataFrame:
    """Cause -> wait links of the stretches PATH: where the path moves between ranks."""
    rank = path[N.RANK].to_numpy()
    moves = np.flatnonzero(rank[1:] != rank[:-1])
    return pd.DataFrame({
        "cause_rank": rank[moves].astype(np.int32), "cause_s": path[N.END_S].to_numpy()[moves],
        "waiting_rank": rank[moves + 1].astype(np.int32), "waiting_s": path[N.START_S].to_numpy()[moves + 1]})


def write_pieces(path_rows: pd.DataFrame, path: Path) -> None:
    """The stretches as an uncompressed Feather file, replaced once complete."""
    import pyarrow as pa
    import pyarrow.feather as feather

    table = pa.Table.from_pandas(path_rows[list(N.CRITICAL_PIECE_COLUMNS)], preserve_index=False)
    tmp = path.with_name(f".{path.name}.part")
    try:
        feather.write_feather(table, str(tmp), compression="uncompressed")
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def read_critical_path(folder: str | Path) -> pd.DataFrame | None:
    """An analysis folder's critical-path stretches (None when it has none); a damaged
    file is one GridscopeError line."""
    path = Path(folder) / N.CRITICAL_PATH_FILE
    if not path.is_file():
        return None
    try:
        frame = pd.read_feather(path)
    except Exception as err:  # pyarrow raises several kinds for a damaged file
        raise GridscopeError(path, f"not a readable critical-path file ({type(err).__name__})") from None
    if list(frame.columns) != list(N.CRITICAL_PIECE_COLUMNS):
        raise GridscopeError(path, f"expected the columns {', '.join(N.CRITICAL_PIECE_COLUMNS)}")
    return frame.astype({N.RANK: np.int32, N.START_S: np.float64, N.END_S: np.float64})
