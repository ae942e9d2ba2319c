"""The input of an export: a trace, or an analysis folder (its trace plus its wait states)."""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import numpy as np

from gridscope.errors import GridscopeError
from gridscope.viewer.run import SUMMARY, RunFolder, WaitStates
from gridscope.viewer.trace import Location, Trace, dump, find_anchor

# Event kinds of the native dump (viewer/native/dump.cpp), index = code.
KIND_NAMES = ("", "enter", "leave", "mpi_send", "mpi_isend", "mpi_isend_complete",
              "mpi_irecv_request", "mpi_recv", "mpi_irecv", "mpi_collective_begin",
              "mpi_collective_end", "mpi_nbc_request", "mpi_nbc_complete")
ENTER, LEAVE, MPI_SEND, MPI_ISEND = 1, 2, 3, 4
MPI_RECV, MPI_IRECV, MPI_COLL_END = 7, 8, 10
NBC_REQUEST, NBC_COMPLETE = 11, 12

# OTF2_CollectiveOp values (OTF2_Events.h), index = code.
COLLECTIVE_OPS = ("barrier", "bcast", "gather", "gatherv", "scatter", "scatterv", "allgather",
                  "allgatherv", "alltoall", "alltoallv", "alltoallw", "allreduce", "reduce",
                  "reduce_scatter", "scan", "exscan", "reduce_scatter_block", "create_handle",
                  "destroy_handle", "allocate", "deallocate", "create_handle_and_allocate",
                  "destroy_handle_and_deallocate")


@dataclass
class ExportSource:
    anchor: Path
    run: RunFolder | None
    trace: Trace
    locations: list[Location]

    @property
    def waitstates(self) -> WaitStates:
        return self.run.waitstates if self.run is not None else WaitStates.empty()

    def metahost_order(self) -> list[str]:
        names = list((self.run.summary.get("metahosts") or {}) if self.run else [])
        for loc in sorted(self.locations, key=lambda l: l.rank):
            if loc.metahost not in names:
                names.append(loc.metahost)
        return names

    def master_location_of_rank(self) -> dict[int, Location]:
        out: dict[int, Location] = {}
        for loc in sorted(self.locations, key=lambda l: l.index):
            out.setdefault(loc.rank, loc)
        return out


def resolve(path: str | os.PathLike) -> tuple[Path, RunFolder | None]:
    """The trace's anchor and, for an analysis folder, the run; clear errors otherwise."""
    p = Path(path)
    if p.is_dir() and (p / SUMMARY).is_file():
        run = RunFolder(p)
        anchor = run.trace_anchor
        if anchor is None:
            raise GridscopeError(p / SUMMARY, "names no readable trace (key \"trace\")")
        return anchor, run
    return find_anchor(p), None


@contextmanager
def open_source(path: str | os.PathLike, workdir: Path | None = None) -> Iterator[ExportSource]:
    """Dump the trace with every event into a temporary folder for the export's duration.

    The dump takes about 57 bytes per event: `workdir` (the output's folder) keeps it on
    the disk that will hold the result anyway rather than in /tmp.
    """
    anchor, run = resolve(path)
    with tempfile.TemporaryDirectory(prefix=".gridscope-export-", dir=workdir) as tmp:
        dump(anchor, Path(tmp), events=True)
        trace = Trace.open(Path(tmp))
        rank_map = run.rank_metahosts() if run is not None else {}
        yield ExportSource(anchor, run, trace, trace.locations(rank_map))
        # drop the memory maps before the folder goes away
        trace.columns.clear()


def prepare_output(out: Path, force: bool, is_dir: bool = False) -> None:
    if out.exists() and not force:
        raise GridscopeError(out, "exists already (use --force to replace it)")
    if out.exists() and force:
        import shutil

        if out.is_dir():
            shutil.rmtree(out)
        else:
            out.unlink()
    if not out.parent.is_dir():
        raise GridscopeError(out.parent, "output folder does not exist")


def region_names(trace: Trace) -> tuple[list[str], np.ndarray]:
    """Region names as a list and a lookup array from region id to that list's index."""
    ids = sorted(trace.regions)
    names = [trace.regions[i]["name"] for i in ids]
    lookup = np.full((max(ids) + 1) if ids else 1, -1, dtype=np.int32)
    for k, i in enumerate(ids):
        lookup[i] = k
    return names, lookup
