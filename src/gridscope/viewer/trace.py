"""A trace as flat numpy columns, made by the native `gridscope-tracetool dump`.

The dump is cached beside the run (``RUN/.gridscope-cache/``, else the user's cache
folder) and keyed by the archive's file sizes and modification times, so a second
`gridscope view` opens instantly. Columns are memory-mapped: a trace of millions of events
costs no load time and little memory.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import re
import shutil
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from gridscope.errors import GridscopeError
from gridscope.native import binary

TOOL = "gridscope-tracetool"
CACHE_DIR_NAME = ".gridscope-cache"
_RANK_NAME = re.compile(r"MPI Rank (\d+)$")

# Colour categories of regions (the viewer's legend uses the same numbers).
CAT_IDLE, CAT_USER, CAT_P2P, CAT_COLL, CAT_SYNC, CAT_MPI_OTHER, CAT_IO, CAT_THREAD = range(8)
CATEGORY_NAMES = ("idle", "computation", "MPI point-to-point", "MPI collective",
                  "MPI synchronisation", "MPI other", "MPI file I/O", "threading")

_P2P_ROLE, _BARRIER_ROLE, _IO_ROLE = 28, 15, 27
_COLL_ROLES = {23, 24, 25, 26}
_P2P_NAMES = re.compile(r"^MPI_(I?[bsr]?send|I?recv|Sendrecv|Wait|Test|Probe|Iprobe|Start)", re.I)


def find_anchor(path: str | os.PathLike) -> Path:
    """`traces.otf2` for a trace folder or the anchor file itself; clear error otherwise."""
    p = Path(path)
    if p.is_dir():
        p = p / "traces.otf2"
    if not p.is_file():
        raise GridscopeError(path, "no OTF2 trace here (want a folder with traces.otf2 or the .otf2 file)")
    if p.suffix != ".otf2":
        raise GridscopeError(p, "not an OTF2 anchor file (want *.otf2)")
    return p.resolve()


def _archive_files(anchor: Path) -> list[Path]:
    stem = anchor.with_suffix("")
    files = [anchor, stem.with_suffix(".def")]
    if stem.is_dir():
        files += sorted(stem.iterdir())
    return [f for f in files if f.exists()]


def archive_key(anchor: Path) -> str:
    h = hashlib.sha256(str(anchor).encode())
    for f in _archive_files(anchor):
        st = f.stat()
        h.update(f"{f.name}:{st.st_size}:{st.st_mtime_ns}".encode())
    return h.hexdigest()[:16]


_STREAMING: set[subprocess.Popen] = set()  # helpers run in the background (a first view's dump)
_STREAMING_LOCK = threading.Lock()


def _run_streaming(cmd: list[str], on_line) -> subprocess.CompletedProcess:
    """Run CMD, handing each stdout line to ON_LINE as it comes (stderr to a file: no pipe
    can fill up while stdout is read)."""
    with tempfile.TemporaryFile(mode="w+", errors="replace") as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True, errors="replace")
        with _STREAMING_LOCK:
            _STREAMING.add(proc)
        try:
            out = []
            for line in proc.stdout:
                out.append(line)
                on_line(line)
            proc.wait()
        finally:
            with _STREAMING_LOCK:
                _STREAMING.discard(proc)
        err.seek(0)
        return subprocess.CompletedProcess(cmd, proc.returncode, "".join(out), err.read())


def stop_background_tools() -> None:
    """End the helpers still running for a background read (the viewer is closing: a
    first view's dump is not waited for; its working folder is removed as on any failure)."""
    with _STREAMING_LOCK:
        running = list(_STREAMING)
    for proc in running:
        proc.terminate()


def run_tool(*args: str | os.PathLike, where: str | os.PathLike, scratch: Path | None = None,
             on_line=None) -> str:
    """Run the native helper; its one-line error becomes a GridscopeError. A failure to
    write into SCRATCH (the tool's working folder) names the folder it is made in.
    ON_LINE, if given, sees each line of its output as it is written."""
    cmd = [str(binary(TOOL)), *map(str, args)]
    if on_line is None:
        proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    else:
        proc = _run_streaming(cmd, on_line)
    if proc.returncode != 0:
        lines = [l for l in proc.stderr.splitlines() if l.startswith("gridscope-tracetool:")]
        problem = lines[-1].split(": ", 2)[-1] if lines else (proc.stderr.strip().splitlines() or ["failed"])[-1]
        parts = lines[-1].split(": ", 2) if lines else []
        named = Path(parts[1]).absolute() if len(parts) == 3 else None
        if scratch is not None and (proc.returncode == -signal.SIGXFSZ or
                                    (named is not None and named.is_relative_to(Path(scratch).absolute()))):
            reason = "File too large" if proc.returncode == -signal.SIGXFSZ else problem
            raise GridscopeError(Path(scratch).absolute().parent, f"cannot write working files here: {reason}")
        if named is not None and named.exists():  # the tool named the damaged file itself
            where = named
        raise GridscopeError(where, f"cannot read the trace: {problem}")
    return proc.stdout


READ_SHARE = 0.9  # of the dump's time, about: reading the locations (then matching messages)


def dump(anchor: Path, outdir: Path, events: bool = False, progress=None) -> None:
    """Dump ANCHOR into OUTDIR; PROGRESS(fraction), if given, hears how far it got."""
    outdir.mkdir(parents=True, exist_ok=True)
    on_line = None
    if progress is not None:
        def on_line(line: str) -> None:  # "progress DONE TOTAL": locations read so far
            parts = line.split()
            if len(parts) == 3 and parts[0] == "progress" and int(parts[2]) > 0:
                progress(READ_SHARE * int(parts[1]) / int(parts[2]))
    run_tool("dump", anchor, outdir, *(["--events"] if events else []), *(["--progress"] if progress else []),
             where=anchor, scratch=outdir, on_line=on_line)


def _writable_cache_root(run: Path | None) -> Path:
    candidates = []
    if run is not None:
        candidates.append(run / CACHE_DIR_NAME)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    candidates.append(Path(base) / "gridscope" / "viewer")
    for c in candidates:
        try:
            c.mkdir(parents=True, exist_ok=True)
            probe = c / f".probe-{os.getpid()}-{threading.get_ident()}"  # threads may probe at once
            probe.write_text("")
            probe.unlink()
            return c
        except OSError:
            continue
    return Path(tempfile.mkdtemp(prefix="gridscope-viewer-"))


def cached_dump(anchor: Path, run: Path | None = None, events: bool = False, progress=None) -> Path:
    """Folder of the dump of `anchor`, made once and reused while the archive is unchanged;
    with `events` the larger dump that also has every event (asked for separately, when needed).
    PROGRESS(fraction), if given, hears how far a new dump got."""
    root = _writable_cache_root(run)
    prefix = "events" if events else "trace"
    target = root / f"{prefix}-{archive_key(anchor)}"
    if (target / "defs.json").is_file():
        return target
    tmp = Path(tempfile.mkdtemp(prefix=".dump-", dir=root))
    try:
        dump(anchor, tmp, events=events, progress=progress)
        for old in root.glob(f"{prefix}-*"):  # one cached dump per run is enough
            if old.name != target.name:
                shutil.rmtree(old, ignore_errors=True)
        try:
            tmp.rename(target)
        except OSError:
            # another `gridscope view` of the same run finished first: use its dump
            if not (target / "defs.json").is_file():
                raise GridscopeError(target, "cannot store the trace cache") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def region_category(region: dict) -> int:
    name = region["name"]
    if region["mpi"]:
        role = region["role"]
        if role == _P2P_ROLE or _P2P_NAMES.match(name):
            return CAT_P2P
        if role == _BARRIER_ROLE or name == "MPI_Barrier":
            return CAT_SYNC
        if role in _COLL_ROLES:
            return CAT_COLL
        if role == _IO_ROLE or name.startswith("MPI_File"):
            return CAT_IO
        return CAT_MPI_OTHER
    if name.startswith(("pthread_", "!$omp", "omp_")):
        return CAT_THREAD
    return CAT_USER


@dataclass
class Location:
    index: int
    rank: int
    thread: str
    node: str
    metahost: str
    label: str


@dataclass
class Trace:
    """Definitions and memory-mapped columns of one dumped trace."""

    folder: Path
    defs: dict
    columns: dict[str, np.ndarray] = field(default_factory=dict)

    @classmethod
    def open(cls, folder: Path) -> "Trace":
        defs = json.loads((folder / "defs.json").read_bytes().decode("utf-8", "replace"))
        cols = {}
        for name, (dtype, n) in defs["columns"].items():
            path = folder / f"{name}.bin"
            if n == 0:
                cols[name] = np.zeros(0, dtype=dtype)
            else:
                cols[name] = np.memmap(path, dtype=dtype, mode="r", shape=(n,))
        return cls(folder, defs, cols)

    # ------------------------------------------------------------- definitions
    @property
    def duration_ns(self) -> int:
        return int(self.defs["time_range_ns"][1])

    @property
    def start_ns(self) -> int:
        return min(0, int(self.defs["time_range_ns"][0]))

    @cached_property
    def regions(self) -> dict[int, dict]:
        return {r["id"]: r for r in self.defs["regions"]}

    @cached_property
    def seg_offsets(self) -> np.ndarray:
        return np.asarray(self.defs["seg_offsets"], dtype=np.int64)

    @cached_property
    def cp_parent(self) -> np.ndarray:
        return np.asarray(self.defs["callpaths"]["parent"], dtype=np.int32)

    @cached_property
    def cp_region(self) -> np.ndarray:
        return np.asarray(self.defs["callpaths"]["region"], dtype=np.int64)

    @cached_property
    def cp_category(self) -> np.ndarray:
        cats = {rid: region_category(r) for rid, r in self.regions.items()}
        return np.asarray([cats.get(int(r), CAT_USER) for r in self.cp_region], dtype=np.int8)

    @cached_property
    def cp_is_mpi(self) -> np.ndarray:
        mpi = {rid for rid, r in self.regions.items() if r["mpi"]}
        return np.asarray([int(r) in mpi for r in self.cp_region], dtype=bool)

    @cached_property
    def cp_paths(self) -> list[str]:
        """Call path strings as the analyzer writes them: region names from the root, '/'."""
        paths: list[str] = []
        for parent, region in zip(self.cp_parent, self.cp_region):
            name = self.regions.get(int(region), {}).get("name", f"region {region}")
            paths.append(name if parent < 0 else f"{paths[parent]}/{name}")
        return paths

    def locations(self, rank_metahosts: dict[int, tuple[str, str]] | None = None) -> list[Location]:
        """Every location with rank, node and metahost.

        Metahosts come from the system tree (a `metacomputer` root's children, else each
        `machine` node) unless `rank_metahosts` (rank -> (metahost, node), from the run's
        Cube file, which may have used a --metahosts map) says otherwise.
        """
        nodes = {n["id"]: n for n in self.defs["system_tree"]}
        groups = {g["id"]: g for g in self.defs["location_groups"]}

        def ancestry(node_id):
            chain = []
            while node_id is not None and node_id in nodes and len(chain) < 64:
                chain.append(nodes[node_id])
                node_id = nodes[node_id]["parent"]
            return chain

        per_rank_count: dict[int, int] = {}
        raw = []
        for i, loc in enumerate(self.defs["locations"]):
            group = groups.get(loc["group"], {"name": "", "parent": None})
            rank = loc["world_rank"]
            if rank < 0:
                m = _RANK_NAME.match(group["name"])
                rank = int(m.group(1)) if m else int(loc["group"])
            chain = ancestry(group["parent"])
            node = next((n["name"] for n in chain if n["class"] == "node"), chain[0]["name"] if chain else "?")
            if chain and chain[-1]["class"] == "metacomputer" and len(chain) >= 2:
                metahost = chain[-2]["name"]
            else:
                metahost = next((n["name"] for n in chain if n["class"] == "machine"), "?")
            if rank_metahosts and rank in rank_metahosts:
                metahost, node = rank_metahosts[rank]
            per_rank_count[rank] = per_rank_count.get(rank, 0) + 1
            raw.append((i, rank, loc["name"], node, metahost))
        out = []
        for i, rank, thread, node, metahost in raw:
            label = f"Rank {rank}" if per_rank_count[rank] == 1 else f"Rank {rank} · {thread}"
            out.append(Location(i, rank, thread, node, metahost, label))
        return out

    def segments(self, loc: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        a, b = self.seg_offsets[loc], self.seg_offsets[loc + 1]
        c = self.columns
        return c["seg_time"][a:b], c["seg_cp"][a:b], c["seg_mpicum"][a:b]


def open_trace(anchor: Path, run: Path | None = None, events: bool = False, progress=None) -> Trace:
    return Trace.open(cached_dump(anchor, run, events, progress))
