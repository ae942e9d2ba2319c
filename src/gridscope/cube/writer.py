"""Write an Experiment as a Cube4 ``.cubex`` file (the layout cubew writes).

A .cubex is a ustar tar holding ``anchor.xml`` (metric, call and system trees) and, per
metric, ``<id>.index`` + ``<id>.data``. Facts this writer relies on (cubew
``cubew_metric.c``, cubelib ``Cube.cpp``, pycubexr ``index_parser.py``):

* the metric dimension is stored *inclusive*: a reader gets a metric's own value by
  subtracting its children, so we store exclusive + sum of the children's stored values;
* we declare every metric ``EXCLUSIVE`` (call-tree exclusive), whose rows run in
  depth-first pre-order of the call tree; cnode ids are given in that same order;
* SPARSE index: the row positions (in the metric's cnode order) that the data file holds;
* a data row has one value per location, locations in system-tree order.
"""

from __future__ import annotations

import io
import os
import struct
import tarfile
import tempfile
import time
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

import numpy as np

from gridscope.cube.layout import CubeLayout, layout_of
from gridscope.cube.model import CALLPATH, SEPARATOR, Experiment, Metric, walk_metrics
from gridscope.errors import GridscopeError

INDEX_MARKER = b"CUBEX.INDEX"
DATA_MARKER = b"CUBEX.DATA"
INDEX_FORMAT_SPARSE = 1

# Cube dtype -> numpy dtype of one stored value (little endian; the index's "1" says so).
WRITE_DTYPES = {
    "DOUBLE": "<f8",
    "MINDOUBLE": "<f8",
    "MAXDOUBLE": "<f8",
    "UINT64": "<u8",
    "INT64": "<i8",
}


# Cube allows several call-tree roots, but pycubexr reads only files with one. A call tree
# with several roots (e.g. MPI_Init outside main) is written under one artificial root,
# named in this attribute so that read_cubex takes it away again.
ARTIFICIAL_ROOT_ATTR = "gridscope::artificial_root"
ARTIFICIAL_ROOT = "program"


def _single_root(exp: Experiment, where) -> tuple[Experiment, CubeLayout]:
    """EXP with one call-tree root, and its layout."""
    layout = layout_of(exp, where=where)
    if sum(parent is None for parent in layout.cnode_parent) <= 1:
        if ARTIFICIAL_ROOT_ATTR not in exp.attrs:
            return exp, layout
        attrs = {k: v for k, v in exp.attrs.items() if k != ARTIFICIAL_ROOT_ATTR}
        return Experiment(exp.metrics, exp.callpaths, exp.locations, exp.severities, attrs), layout  # attrs: no layout
    root = exp.attrs.get(ARTIFICIAL_ROOT_ATTR, ARTIFICIAL_ROOT)
    prefix = root + SEPARATOR
    severities = exp.severities.assign(**{CALLPATH: prefix + exp.severities[CALLPATH]})
    exp = Experiment(exp.metrics, (root,) + tuple(prefix + p for p in exp.callpaths),
                     exp.locations, severities, {**exp.attrs, ARTIFICIAL_ROOT_ATTR: root})
    return exp, layout_of(exp, where=where)


def write_cubex(exp: Experiment, path: str | os.PathLike, mtime: float | None = None) -> None:
    """Write EXP to PATH (replaced atomically). MTIME: the members' modification time in
    the tar (seconds since the epoch; default now): a fixed one makes the file a function
    of EXP alone."""
    path = Path(path)
    exp, layout = _single_root(exp, path)
    for metric, _ in walk_metrics(exp.metrics):
        if metric.dtype.upper() not in WRITE_DTYPES:
            raise GridscopeError(path, f"metric {metric.uniq_name!r}: cannot write Cube "
                                       f"data type {metric.dtype!r} (use one of "
                                       f"{', '.join(WRITE_DTYPES)})")
    stored = _stored_values(exp, layout)
    members: list[tuple[str, bytes]] = [("anchor.xml", _anchor_xml(exp, layout).encode())]
    for metric_id, metric in enumerate(layout.metrics):
        index, data = _metric_files(metric, stored[metric.uniq_name])
        members.append((f"{metric_id}.index", index))
        members.append((f"{metric_id}.data", data))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".cubex-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as raw, tarfile.open(fileobj=raw, mode="w",
                                                      format=tarfile.USTAR_FORMAT) as tar:
            stamp = time.time() if mtime is None else mtime
            for name, payload in members:
                info = tarfile.TarInfo(name)
                info.size = len(payload)
                info.mtime = stamp
                info.mode = 0o644
                tar.addfile(info, io.BytesIO(payload))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _stored_values(exp: Experiment, layout: CubeLayout) -> dict[str, np.ndarray]:
    """Per metric a (cnodes × locations) array as the file stores it (metric-inclusive)."""
    own = layout.dense(exp.severities)
    stored: dict[str, np.ndarray] = {}

    def fill(metric: Metric) -> np.ndarray:
        values = own[metric.uniq_name].copy()
        for child in metric.children:
            child_values = fill(child)
            if metric.additive and child.additive:
                values += child_values
        stored[metric.uniq_name] = values
        return values

    for root in exp.metrics:
        fill(root)
    return stored


def _metric_files(metric: Metric, values: np.ndarray) -> tuple[bytes, bytes]:
    rows = np.flatnonzero(np.any(values != 0, axis=1))
    if rows.size == 0:  # readers (pycubexr) need at least one row; a zero row is exact
        rows = np.array([0])
    index = (INDEX_MARKER + struct.pack("<IHBI", 1, 0, INDEX_FORMAT_SPARSE, rows.size)
             + rows.astype("<u4").tobytes())
    np_dtype = np.dtype(WRITE_DTYPES[metric.dtype.upper()])
    block = values[rows]
    if np_dtype.kind in "iu":
        block = np.rint(block)
        if np_dtype.kind == "u":
            block = np.clip(block, 0, None)
    data = DATA_MARKER + np.ascontiguousarray(block.astype(np_dtype)).tobytes()
    return index, data


def _tag(name: str, text: str) -> str:
    return f"<{name}>{escape(text)}</{name}>"


def _anchor_xml(exp: Experiment, layout: CubeLayout) -> str:
    from gridscope.version import __version__

    out = ['<?xml version="1.0" encoding="UTF-8"?>', "", '<cube version="4.4">']
    attrs = {"Creator": f"gridscope {__version__}", "CUBE_CT_AGGR": "SUM"}
    attrs.update(exp.attrs)
    for key, value in attrs.items():
        out.append(f"<attr key={quoteattr(str(key))} value={quoteattr(str(value))}/>")
    out.append("<metrics>")
    ids = {m.uniq_name: i for i, m in enumerate(layout.metrics)}

    def metric_xml(metric: Metric) -> None:
        out.append(f'<metric id="{ids[metric.uniq_name]}" type="EXCLUSIVE">')
        out.extend([_tag("disp_name", metric.disp_name), _tag("uniq_name", metric.uniq_name),
                    _tag("dtype", metric.dtype.upper()), _tag("uom", metric.uom),
                    _tag("url", metric.url), _tag("descr", metric.descr)])
        for child in metric.children:
            metric_xml(child)
        out.append("</metric>")

    for root in exp.metrics:
        metric_xml(root)
    out.append("</metrics>")
    out.append("<program>")
    for region_id, name in enumerate(layout.regions):
        is_mpi = name.startswith("MPI_")
        artificial = region_id == 0 and exp.attrs.get(ARTIFICIAL_ROOT_ATTR) == name
        out.append(f'<region id="{region_id}" mod={quoteattr("MPI" if is_mpi else "")} '
                   f'begin="-1" end="-1">')
        out.extend([_tag("name", name), _tag("mangled_name", name),
                    _tag("paradigm", "mpi" if is_mpi else
                         ("measurement" if artificial else "user")),
                    _tag("role", "artificial" if artificial else "function"),
                    "<url></url>", "<descr></descr>", "</region>"])
    depth_stack: list[int] = []
    for cnode_id, parent in enumerate(layout.cnode_parent):
        while depth_stack and depth_stack[-1] != parent:
            depth_stack.pop()
            out.append("</cnode>")
        out.append(f'<cnode id="{cnode_id}" calleeId="{layout.cnode_region[cnode_id]}">')
        depth_stack.append(cnode_id)
    out.extend("</cnode>" for _ in depth_stack)
    out.append("</program>")
    out.append("<system>")
    out.append('<systemtreenode Id="0">')
    out.extend([_tag("name", "metacomputer"), _tag("class", "metacomputer")])
    node_id = 1
    location_id = 0
    for metahost, nodes in layout.system:
        out.append(f'<systemtreenode Id="{node_id}">')
        out.extend([_tag("name", metahost), _tag("class", "machine")])
        node_id += 1
        for node, ranks in nodes:
            out.append(f'<systemtreenode Id="{node_id}">')
            out.extend([_tag("name", node), _tag("class", "node")])
            node_id += 1
            for rank in ranks:
                out.append(f'<locationgroup Id="{location_id}">')
                out.extend([_tag("name", f"MPI Rank {rank}"), _tag("rank", str(rank)),
                            _tag("type", "process")])
                out.append(f'<location Id="{location_id}">')
                out.extend([_tag("name", "Master thread"), _tag("rank", "0"),
                            _tag("type", "thread"), "</location>", "</locationgroup>"])
                location_id += 1
            out.append("</systemtreenode>")
        out.append("</systemtreenode>")
    out.append("</systemtreenode>")
    out.append("</system>")
    out.append("</cube>")
    return "\n".join(out) + "\n"
