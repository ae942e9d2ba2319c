"""Events as a typed parquet table (one row per event; no per-row dicts or JSON).

Columns: rank int32, location uint64 (OTF2 id), thread/metahost/node dictionary strings,
time_ns int64 (since the trace's global offset, clock offsets applied), kind dictionary
string, region dictionary string (Enter/Leave), partner_rank int32 (P2P peer or collective
root), comm dictionary string, tag int32, collective_op dictionary string, bytes_sent and
bytes_received uint64, request_id uint64 — nullable where an event has no such field.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from gridscope.export.source import (COLLECTIVE_OPS, ENTER, KIND_NAMES, LEAVE, MPI_COLL_END, NBC_COMPLETE,
                                     NBC_REQUEST, ExportSource, region_names)

ROW_GROUP = 1 << 22


def _dictionary(codes: np.ndarray, names: list[str], valid: np.ndarray | None = None):
    import pyarrow as pa

    mask = None if valid is None else ~valid
    indices = pa.array(np.where(codes < 0, 0, codes).astype(np.int32), mask=mask)
    return pa.DictionaryArray.from_arrays(indices, pa.array(names, type=pa.string()))


def write_parquet(src: ExportSource, out: Path, progress=None) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    c = src.trace.columns
    n = len(c["ev_time"])
    locs = sorted(src.locations, key=lambda l: l.index)
    loc_rank = np.asarray([l.rank for l in locs], dtype=np.int32)
    loc_id = np.asarray([l["id"] for l in src.trace.defs["locations"]], dtype=np.uint64)
    threads = sorted({l.thread for l in locs})
    metahosts = src.metahost_order()
    nodes = sorted({l.node for l in locs})
    loc_thread = np.asarray([threads.index(l.thread) for l in locs], dtype=np.int32)
    loc_mh = np.asarray([metahosts.index(l.metahost) for l in locs], dtype=np.int32)
    loc_node = np.asarray([nodes.index(l.node) for l in locs], dtype=np.int32)
    rnames, rlookup = region_names(src.trace)
    comms = src.trace.defs["comms"]
    comm_names = [cm["name"] or f"comm {cm['id']}" for cm in comms]
    comm_lookup = {cm["id"]: i for i, cm in enumerate(comms)}
    comm_arr = np.full(max([cm["id"] for cm in comms], default=0) + 2, -1, dtype=np.int32)
    for cid, i in comm_lookup.items():
        comm_arr[cid] = i

    writer = None
    try:
        for a in range(0, max(n, 1), ROW_GROUP):
            b = min(a + ROW_GROUP, n)
            loc = np.asarray(c["ev_loc"][a:b])
            kind = np.asarray(c["ev_kind"][a:b])
            region = np.asarray(c["ev_region"][a:b])
            partner = np.asarray(c["ev_partner"][a:b])
            comm = np.asarray(c["ev_comm"][a:b])
            tag = np.asarray(c["ev_tag"][a:b])
            is_region = (kind == ENTER) | (kind == LEAVE)
            is_coll = (kind == MPI_COLL_END) | (kind == NBC_COMPLETE)  # a collective's operation and bytes
            has_comm = comm >= 0
            is_p2p = has_comm & ~is_coll
            rcode = np.where(is_region, rlookup[np.clip(region, 0, len(rlookup) - 1)], -1)
            ccode = np.where(has_comm, comm_arr[np.clip(comm, 0, len(comm_arr) - 1)], -1)
            partner_rank = np.where(partner >= 0, loc_rank[np.clip(partner, 0, len(loc_rank) - 1)], 0)
            request = np.asarray(c["ev_request"][a:b])
            has_request = np.isin(kind, (4, 5, 6, 8, NBC_REQUEST, NBC_COMPLETE))
            table = pa.table({
                "rank": pa.array(loc_rank[loc]),
                "location": pa.array(loc_id[loc]),
                "thread": _dictionary(loc_thread[loc], threads),
                "metahost": _dictionary(loc_mh[loc], metahosts),
                "node": _dictionary(loc_node[loc], nodes),
                "time_ns": pa.array(np.asarray(c["ev_time"][a:b])),
                "kind": _dictionary(kind.astype(np.int32), list(KIND_NAMES)),
                "region": _dictionary(rcode, rnames, rcode >= 0),
                "partner_rank": pa.array(partner_rank.astype(np.int32), mask=partner < 0),
                "comm": _dictionary(ccode, comm_names, ccode >= 0),
                "tag": pa.array(tag.astype(np.int32), mask=~is_p2p),
                "collective_op": _dictionary(np.where(is_coll, tag, -1), list(COLLECTIVE_OPS),
                                             is_coll & (tag >= 0) & (tag < len(COLLECTIVE_OPS))),
                "bytes_sent": pa.array(np.asarray(c["ev_bytes_sent"][a:b])),
                "bytes_received": pa.array(np.asarray(c["ev_bytes_recv"][a:b])),
                "request_id": pa.array(request, mask=~has_request),
            })
            if writer is None:
                writer = pq.ParquetWriter(out, table.schema, compression="zstd")
            writer.write_table(table)
            if progress:
                progress(b, n)
    finally:
        if writer is not None:
            writer.close()
    return n
