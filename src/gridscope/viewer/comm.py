"""Communication matrices (who sent how much to whom) from the trace's matched messages."""

from __future__ import annotations

import numpy as np


def matrix(sender: np.ndarray, receiver: np.ndarray, nbytes: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Bytes and message counts per (sender, receiver) for codes in [0, size)."""
    flat = sender.astype(np.int64) * size + receiver.astype(np.int64)
    count = np.bincount(flat, minlength=size * size).reshape(size, size)
    # (float even when there is nothing: bincount of nothing is int)
    volume = np.bincount(flat, weights=nbytes.astype(np.float64), minlength=size * size).astype(np.float64).reshape(size, size)
    return volume, count


def sparse(volume: np.ndarray, count: np.ndarray) -> dict[str, list]:
    """Non-empty cells as columns: row, col, bytes, count (columns rather than one list per
    cell: an allreduce over 1,024 ranks fills a million cells, and a list per cell took
    seconds to build and encode)."""
    rows, cols = np.nonzero(count)
    return {"row": rows.tolist(), "col": cols.tolist(), "bytes": volume[rows, cols].astype(np.float64).tolist(),
            "count": count[rows, cols].tolist()}


def cell_list(cells: dict[str, list]) -> list[tuple[int, int, float, int]]:
    """sparse()'s columns as (row, col, bytes, count) per cell."""
    return list(zip(cells["row"], cells["col"], cells["bytes"], cells["count"]))


# Event kinds of the native dump (viewer/native/dump.cpp) that end a collective with its bytes.
COLLECTIVE_ENDS = (10, 12)  # MpiCollectiveEnd, NonBlockingCollectiveComplete


def collective_matrix(ev: dict[str, np.ndarray], code_of_loc: np.ndarray, size: int,
                      t0: int | None = None, t1: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Collective bytes and operation counts per (sender, receiver) code, from the dump's events.

    OTF2 records only what each rank sent in a collective, not to whom. The matrix puts it
    where the operation sends it: to the root when the operation has one and the rank is
    not it (gather, reduce), else spread evenly over the communicator's other members (the
    root of a broadcast or scatter, every rank of an allreduce or all-to-all). So each row
    sums to exactly the bytes that rank sent in collectives, the number the profile's Bytes
    sent metric counts. A communicator's members: the locations that ended a collective on it.
    """
    kind, loc = np.asarray(ev["ev_kind"]), np.asarray(ev["ev_loc"]).astype(np.int64)
    ends = np.isin(kind, COLLECTIVE_ENDS)
    members = {int(c): np.unique(loc[ends & (np.asarray(ev["ev_comm"]) == c)])
               for c in np.unique(np.asarray(ev["ev_comm"])[ends])}
    sel = ends & (np.asarray(ev["ev_bytes_sent"]) > 0)
    if t0 is not None:
        sel &= np.asarray(ev["ev_time"]) >= t0
    if t1 is not None:
        sel &= np.asarray(ev["ev_time"]) <= t1
    loc, root = loc[sel], np.asarray(ev["ev_partner"])[sel].astype(np.int64)
    comm_id, sent = np.asarray(ev["ev_comm"])[sel].astype(np.int64), np.asarray(ev["ev_bytes_sent"])[sel].astype(np.float64)
    rooted = (root >= 0) & (root != loc)
    volume, count = matrix(code_of_loc[loc[rooted]], code_of_loc[root[rooted]], sent[rooted], size)
    for c in np.unique(comm_id[~rooted]):
        mine = ~rooted & (comm_id == c)
        group = members[int(c)]
        # per sender location: bytes and operations, then an equal share to every other member
        per_loc = np.bincount(loc[mine], weights=sent[mine], minlength=int(group.max()) + 1)
        ops = np.bincount(loc[mine], minlength=int(group.max()) + 1)
        senders = np.nonzero(ops)[0]
        if len(group) == 1:  # a communicator of one: it sends to itself
            others = np.ones((len(senders), 1), dtype=bool)
        else:
            others = senders[:, None] != group[None, :]
        share = np.where(others, (per_loc[senders] / others.sum(axis=1))[:, None], 0.0)
        rows = np.broadcast_to(code_of_loc[senders][:, None], others.shape)
        cols = np.broadcast_to(code_of_loc[group][None, :], others.shape)
        np.add.at(volume, (rows[others], cols[others]), share[others])
        np.add.at(count, (rows[others], cols[others]), np.broadcast_to(ops[senders][:, None], others.shape)[others])
    return volume, count
