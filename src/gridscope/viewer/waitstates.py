"""The run's wait states as the viewer holds them: numpy columns, labels as small codes.

A large analysis has millions of instances (13 M at 1,024 ranks and 98 M events), so they
are read from the Arrow file without pandas and without one Python string per row
(pattern, class and call path stay dictionary codes), sorted by start once, and the
sorted columns are kept in the viewer's cache (``waits-<key>`` beside the trace dump, key =
the file's path, size and modification time): a second `gridscope view` memory-maps them.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gridscope.analysis import names as N
from gridscope.errors import GridscopeError

_ARRAYS = ("pattern", "klass", "rank", "start_ns", "end_ns", "severity_s", "callpath_code")
_CACHE_VERSION = 1


@dataclass
class WaitStates:
    """Wait-state instances as columns, sorted by start; pattern and class as codes into
    their sorted names, call path as a code into `callpaths`."""

    patterns: list[str]
    classes: list[str]
    pattern: np.ndarray        # int16 code into patterns
    klass: np.ndarray          # int8 code into classes
    rank: np.ndarray           # int32
    start_ns: np.ndarray       # int64, sorted ascending
    end_ns: np.ndarray
    severity_s: np.ndarray
    callpath_code: np.ndarray  # int32 code into callpaths
    callpaths: list[str]
    max_duration_ns: int = 0

    def __len__(self) -> int:
        return len(self.start_ns)

    @property
    def callpath(self) -> "CodedLabels":
        """Call path of instance i as `callpath[i]` (a string, as before the codes)."""
        return CodedLabels(self.callpath_code, self.callpaths)

    @classmethod
    def empty(cls) -> "WaitStates":
        z = np.zeros(0)
        return cls([], [], z.astype(np.int16), z.astype(np.int8), z.astype(np.int32),
                   z.astype(np.int64), z.astype(np.int64), z, z.astype(np.int32), [])

    @classmethod
    def from_table(cls, table, path: Path | None = None) -> "WaitStates":
        """From the wait-state file's pyarrow table (analysis.waitstates.read_waitstate_table)."""
        import pyarrow as pa

        try:
            patterns, pattern = _codes(table.column(N.PATTERN), sort=True)
            classes, klass = _codes(table.column(N.CLASS), sort=True)
            callpaths, cpath = _codes(table.column(N.CALLPATH), sort=False)
            rank = _numbers(table.column(N.RANK), np.int32)
            start_s = _numbers(table.column(N.START_S), np.float64)
            end_s = _numbers(table.column(N.END_S), np.float64)
            severity = _numbers(table.column(N.SEVERITY_S), np.float64)
        except (ValueError, TypeError, pa.ArrowException) as err:  # a damaged column shows when decoded
            raise GridscopeError(path or "wait states", f"cannot read wait states: {err}") from None
        # narrow codes and integer times before the sort: its gathers move less memory
        pattern, klass, cpath = pattern.astype(np.int16), klass.astype(np.int8), cpath.astype(np.int32)
        start_ns = np.rint(start_s * 1e9).astype(np.int64)
        end_ns = np.rint(end_s * 1e9).astype(np.int64)
        if len(start_s) > 1 and not bool(np.all(start_s[1:] >= start_s[:-1])):
            order = _stable_order(start_s, start_ns)
            pattern, klass, cpath, rank = pattern[order], klass[order], cpath[order], rank[order]
            start_ns, end_ns, severity = start_ns[order], end_ns[order], severity[order]
        longest = int((end_ns - start_ns).max()) if len(start_ns) else 0
        return cls(patterns, classes, pattern, klass, rank, start_ns, end_ns, severity, cpath, callpaths, longest)

    # ------------------------------------------------------------------ cache
    def save(self, folder: Path) -> None:
        for name in _ARRAYS:
            np.save(folder / f"{name}.npy", np.ascontiguousarray(getattr(self, name)))
        labels = {"version": _CACHE_VERSION, "patterns": self.patterns, "classes": self.classes,
                  "callpaths": self.callpaths, "max_duration_ns": self.max_duration_ns}
        (folder / "waits.json").write_text(json.dumps(labels))

    @classmethod
    def load(cls, folder: Path) -> "WaitStates":
        labels = json.loads((folder / "waits.json").read_text())
        if labels.get("version") != _CACHE_VERSION:
            raise ValueError("old cache")
        arrays = {name: np.load(folder / f"{name}.npy", mmap_mode="r") for name in _ARRAYS}
        return cls(labels["patterns"], labels["classes"], callpaths=labels["callpaths"],
                   max_duration_ns=int(labels["max_duration_ns"]), **arrays)


class CodedLabels:
    """A column of labels kept as codes: [i] is the label of row i."""

    def __init__(self, codes: np.ndarray, labels: list[str]):
        self.codes, self.labels = codes, labels

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, i) -> str:
        return self.labels[int(self.codes[i])]


def _codes(column, sort: bool) -> tuple[list[str], np.ndarray]:
    """Labels and each row's code into them. sort: only the labels that occur, in sorted
    order (what pandas.Categorical of the strings gives); else the file's dictionary."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not pa.types.is_dictionary(column.type):
        column = pc.dictionary_encode(column)
    if isinstance(column, pa.ChunkedArray):
        column = column.unify_dictionaries().combine_chunks() if column.num_chunks else \
            pa.array([], type=column.type)
    labels = ["nan" if v is None else str(v) for v in column.dictionary.to_pylist()]
    indices = column.indices
    if indices.null_count:  # a missing label reads as pandas' astype(str) of it
        labels.append("nan")
        indices = pc.fill_null(indices, len(labels) - 1)
    codes = indices.to_numpy(zero_copy_only=False)  # the file's index width (int8 usually)
    if codes.dtype.kind == "i" and codes.dtype.itemsize < 4 and len(labels) > np.iinfo(codes.dtype).max:
        codes = codes.astype(np.int64)  # a label added for nulls past the type's range
    if not sort:
        return labels, codes
    present = np.nonzero(np.bincount(codes, minlength=len(labels)))[0]
    order = sorted(present.tolist(), key=lambda i: labels[i])
    remap = np.full(len(labels), -1, dtype=np.int32)
    remap[order] = np.arange(len(order))
    return [labels[i] for i in order], remap[codes]


def _stable_order(start_s: np.ndarray, start_ns: np.ndarray) -> np.ndarray:
    """np.argsort(start_s, kind="stable"), through the faster integer sort of START_NS
    (the seconds rounded, so in the same order): the same permutation unless two starts
    less than a nanosecond apart came in the file in the other order; then the float sort."""
    order = np.argsort(start_ns, kind="stable")
    by_ns = start_s[order]
    if bool(np.all(by_ns[1:] >= by_ns[:-1])):
        return order
    return np.argsort(start_s, kind="stable")


def _numbers(column, dtype) -> np.ndarray:
    return column.to_numpy().astype(dtype, copy=False)


def _key(path: Path) -> str:
    st = path.stat()
    return hashlib.sha256(f"{path.resolve()}:{st.st_size}:{st.st_mtime_ns}".encode()).hexdigest()[:16]


def load_waitstates(folder: Path) -> WaitStates:
    """The wait states of the analysis folder (empty without a wait-state file), through the cache."""
    from gridscope.analysis.waitstates import read_waitstate_table, waitstates_file
    from gridscope.viewer.trace import _writable_cache_root

    path = waitstates_file(folder)
    if path is None:
        return WaitStates.empty()
    root = _writable_cache_root(folder)
    target = root / f"waits-{_key(path)}"
    if (target / "waits.json").is_file():
        try:
            return WaitStates.load(target)
        except (OSError, ValueError, KeyError):
            shutil.rmtree(target, ignore_errors=True)  # damaged or old: made again below
    waits = WaitStates.from_table(read_waitstate_table(path), path)
    tmp = Path(tempfile.mkdtemp(prefix=".waits-", dir=root))
    try:
        waits.save(tmp)
        for old in root.glob("waits-*"):  # one per run
            shutil.rmtree(old, ignore_errors=True)
        tmp.rename(target)
    except OSError:
        pass  # a full disk or a concurrent viewer: serve from memory
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return waits
