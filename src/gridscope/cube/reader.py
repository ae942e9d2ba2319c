"""Read a Cube4 ``.cubex`` file (ours or Score-P's) into an Experiment.

What the file stores is converted to the model's convention (exclusive in the metric and
in the call tree): call-tree INCLUSIVE metrics (Score-P's ``time``) lose their callees'
values, and every additive metric loses its child metrics' values (Cube stores the metric
dimension inclusive; cubelib ``Cube::get_sevs_adv`` subtracts the children likewise).
Threads of one process are summed into their rank. Derived metrics carry no data and are
left out (their children move up).
"""

from __future__ import annotations

import os
import struct
import tarfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree

import numpy as np
import pandas as pd

from gridscope.cube.model import (CALLPATH, METRIC, RANK, SEPARATOR, VALUE, Experiment, Metric,
                                  empty_severities, make_locations)
from gridscope.errors import GridscopeError

INDEX_MARKER = b"CUBEX.INDEX"
DATA_MARKER = b"CUBEX.DATA"
ZDATA_MARKER = b"ZCUBEX.DATA"
DATA_METRIC_TYPES = ("EXCLUSIVE", "INCLUSIVE", "SIMPLE")

# Cube's legacy names are 8 bytes wide: cubew stores "FLOAT" as double and "INTEGER" as
# int64 (cubew_services.c, __cube_metric_dtype2data_type); Scalasca's scout writes them.
READ_DTYPES = {
    "DOUBLE": "f8", "MINDOUBLE": "f8", "MAXDOUBLE": "f8", "FLOAT": "f8",
    "UINT64": "u8", "INT64": "i8", "UINT32": "u4", "INT32": "i4", "INTEGER": "i8",
    "INT": "i4", "UINT16": "u2", "INT16": "i2", "UINT8": "u1", "INT8": "i1",
}
SKIPPED_ATTR = "gridscope::skipped_metrics"
ARTIFICIAL_ROOT_ATTR = "gridscope::artificial_root"  # same key as the writer's


@dataclass
class _MetricDef:
    id: int
    kind: str
    metric: Metric  # children filled in later
    children: list["_MetricDef"] = field(default_factory=list)


@dataclass
class _Cnode:
    id: int
    path: str
    parent: "_Cnode | None"
    children: list["_Cnode"] = field(default_factory=list)


def read_cubex(path: str | os.PathLike) -> Experiment:
    path = Path(path)
    if not path.is_file():
        raise GridscopeError(path, "no such Cube file")
    try:
        with tarfile.open(path) as tar:
            members = {m.name: m for m in tar.getmembers() if m.isfile()}
            if "anchor.xml" not in members:
                raise GridscopeError(path, "not a Cube4 file: anchor.xml is missing")
            anchor = _xml_root(tar.extractfile(members["anchor.xml"]).read(), path)
            defs = _metric_defs(anchor.find("metrics"), path)
            cnodes = _cnodes(anchor.find("program"), path)
            loc_ranks, locations = _system(anchor.find("system"), path)
            skipped: list[str] = []
            stored: dict[str, np.ndarray] = {}
            for d in _walk_defs(defs):
                if d.kind not in DATA_METRIC_TYPES:
                    continue
                name = d.metric.uniq_name
                np_type = READ_DTYPES.get(d.metric.dtype.upper())
                if np_type is None:
                    skipped.append(name)
                    continue
                index_name, data_name = f"{d.id}.index", f"{d.id}.data"
                if index_name not in members or data_name not in members:
                    stored[name] = np.zeros((len(cnodes), len(loc_ranks)))
                    continue
                stored[name] = _metric_values(
                    tar.extractfile(members[index_name]).read(),
                    tar.extractfile(members[data_name]).read(),
                    np_type, _enumeration(d.kind, cnodes), len(cnodes), len(loc_ranks),
                    f"{path}: {data_name}")
    except (tarfile.TarError, EOFError, zlib.error) as err:
        first_line = (str(err).splitlines() or [type(err).__name__])[0].rstrip(":")
        raise GridscopeError(path, f"not a readable Cube4 file ({first_line})") from None
    defs = _drop_derived(defs)
    _to_callpath_exclusive(defs, stored, cnodes)
    own = _to_metric_exclusive(defs, stored)
    attrs = {e.get("key"): e.get("value") for e in anchor.findall("attr")}
    if skipped:
        attrs[SKIPPED_ATTR] = ",".join(skipped)
    exp = _experiment(defs, own, cnodes, loc_ranks, locations, attrs)
    return _without_artificial_root(exp)


def _without_artificial_root(exp: Experiment) -> Experiment:
    """Undo the writer's single artificial root (see writer.ARTIFICIAL_ROOT_ATTR)."""
    root = exp.attrs.get(ARTIFICIAL_ROOT_ATTR)
    roots = [p for p in exp.callpaths if SEPARATOR not in p]
    if not root or roots != [root] or len(exp.callpaths) < 2:
        return exp
    sev = exp.severities
    if (sev[CALLPATH] == root).any():
        return exp  # the root holds values: it is not ours to drop
    cut = len(root) + len(SEPARATOR)
    attrs = {k: v for k, v in exp.attrs.items() if k != ARTIFICIAL_ROOT_ATTR}
    return Experiment(exp.metrics, tuple(p[cut:] for p in exp.callpaths if p != root),
                      exp.locations, sev.assign(**{CALLPATH: sev[CALLPATH].str[cut:]}), attrs)


def _xml_root(raw: bytes, path) -> ElementTree.Element:
    if raw[:2] == b"\x1f\x8b":
        raw = zlib.decompress(raw, 16 + zlib.MAX_WBITS)
    try:
        return ElementTree.fromstring(raw)
    except ElementTree.ParseError as err:
        raise GridscopeError(path, f"anchor.xml is not valid XML ({err})") from None


def _metric_defs(element, path) -> list[_MetricDef]:
    if element is None:
        raise GridscopeError(path, "anchor.xml has no <metrics>")
    out = []
    for m in element.findall("metric"):
        try:
            metric_id = int(m.get("id"))
        except (TypeError, ValueError):
            raise GridscopeError(path, "anchor.xml: a metric has no numeric id") from None
        metric = Metric(uniq_name=m.findtext("uniq_name") or f"metric{metric_id}",
                        disp_name=m.findtext("disp_name") or "", uom=m.findtext("uom") or "",
                        descr=m.findtext("descr") or "", url=m.findtext("url") or "",
                        dtype=(m.findtext("dtype") or "DOUBLE").upper())
        out.append(_MetricDef(metric_id, (m.get("type") or "EXCLUSIVE").upper(), metric,
                              _metric_defs(m, path)))
    return out


def _walk_defs(defs):
    for d in defs:
        yield d
        yield from _walk_defs(d.children)


def _drop_derived(defs: list[_MetricDef]) -> list[_MetricDef]:
    out = []
    for d in defs:
        kids = _drop_derived(d.children)
        if d.kind in DATA_METRIC_TYPES:
            out.append(_MetricDef(d.id, d.kind, d.metric, kids))
        else:
            out.extend(kids)
    return out


def _cnodes(program, path) -> list[_Cnode]:
    """All cnodes, depth-first pre-order, with their call paths."""
    if program is None:
        raise GridscopeError(path, "anchor.xml has no <program>")
    regions = {r.get("id"): r.findtext("name") or "" for r in program.findall("region")}
    out: list[_Cnode] = []

    def visit(element, parent):
        region = regions.get(element.get("calleeId"))
        if region is None:
            raise GridscopeError(path, f"anchor.xml: cnode {element.get('id')} calls an "
                                       f"unknown region {element.get('calleeId')}")
        cnode = _Cnode(int(element.get("id")),
                       region if parent is None else parent.path + SEPARATOR + region, parent)
        out.append(cnode)
        if parent is not None:
            parent.children.append(cnode)
        for child in element.findall("cnode"):
            visit(child, cnode)

    for root in program.findall("cnode"):
        visit(root, None)
    if not out:
        raise GridscopeError(path, "anchor.xml has an empty call tree")
    return out


def _enumeration(kind: str, cnodes: list[_Cnode]) -> list[int]:
    """Positions -> index into CNODES, in the row order cubew uses for KIND."""
    position_of = {id(c): i for i, c in enumerate(cnodes)}
    if kind == "EXCLUSIVE":
        return list(range(len(cnodes)))
    if kind == "SIMPLE":
        return sorted(range(len(cnodes)), key=lambda i: cnodes[i].id)
    order: list[int] = []  # INCLUSIVE: a node's children listed before they are visited

    def wide(node):
        if node.parent is None:
            order.append(position_of[id(node)])
        order.extend(position_of[id(c)] for c in node.children)
        for c in node.children:
            wide(c)

    for root in (c for c in cnodes if c.parent is None):
        wide(root)
    return order


def _metric_values(index: bytes, data: bytes, np_type: str, order: list[int], n_cnodes: int,
                   n_locations: int, where: str) -> np.ndarray:
    if not index.startswith(INDEX_MARKER) or len(index) < len(INDEX_MARKER) + 7:
        raise GridscopeError(where, "index file has no CUBEX.INDEX header")
    head = index[len(INDEX_MARKER):]
    endian = "<" if struct.unpack("<I", head[:4])[0] == 1 else ">"
    index_format = head[6]
    if index_format == 1:
        (count,) = struct.unpack(endian + "I", head[7:11])
        positions = np.frombuffer(head[11:11 + 4 * count], dtype=endian + "u4")
        if positions.size != count:
            raise GridscopeError(where, "index file is truncated")
    else:
        positions = np.arange(n_cnodes)
    dtype = np.dtype(endian + np_type)
    if data.startswith(ZDATA_MARKER):
        raw = _inflate(data[len(ZDATA_MARKER):], endian, where)
    elif data.startswith(DATA_MARKER):
        raw = data[len(DATA_MARKER):]
    else:
        raise GridscopeError(where, "data file has no CUBEX.DATA header")
    if len(raw) != positions.size * n_locations * dtype.itemsize:
        raise GridscopeError(where, f"data file holds {len(raw)} bytes, expected "
                                    f"{positions.size} rows × {n_locations} locations "
                                    f"× {dtype.itemsize} bytes")
    values = np.frombuffer(raw, dtype=dtype)
    if positions.size and int(positions.max()) >= n_cnodes:
        raise GridscopeError(where, "index names a call path the anchor does not define")
    out = np.zeros((n_cnodes, n_locations))
    rows = np.asarray(order)[positions.astype(np.int64)]
    out[rows] = values.reshape(positions.size, n_locations).astype("float64")
    return out


def _inflate(body: bytes, endian: str, where: str) -> bytes:
    (count,) = struct.unpack(endian + "q", body[:8])
    headers = np.frombuffer(body[8:8 + 24 * count], dtype=endian + "i8").reshape(count, 3)
    offset = 8 + 24 * count
    chunks = []
    for _, _, size in headers:
        chunks.append(zlib.decompress(body[offset:offset + int(size)]) if size else b"")
        offset += int(size)
    return b"".join(chunks)


def _system(system, path):
    """Rank of every location (in Id order) and one (rank, metahost, node) per process."""
    if system is None:
        raise GridscopeError(path, "anchor.xml has no <system>")
    located: list[tuple[int, int]] = []
    processes: dict[int, tuple[str, str]] = {}

    def cls(element) -> str:
        return (element.findtext("class") or element.get("class") or "").strip()

    def name(element) -> str:
        text, kind = (element.findtext("name") or "").strip(), cls(element)
        return text[len(kind) + 1:] if kind and text.startswith(kind + " ") else text

    def visit(element, metahost, node, top):
        kind = cls(element)
        if kind == "machine":
            metahost = name(element)
        elif kind == "node":
            node = name(element)
        top = top or name(element)
        for child in element.findall("systemtreenode"):
            visit(child, metahost, node, top)
        for group in element.findall("locationgroup"):
            group_visit(group, metahost or top, node or name(element))

    def group_visit(group, metahost, node):
        try:
            rank = int(group.findtext("rank"))
        except (TypeError, ValueError):
            raise GridscopeError(path, "anchor.xml: a location group has no rank") from None
        processes.setdefault(rank, (metahost, node))
        for loc in group.findall("location"):
            located.append((int(loc.get("Id")), rank))
        for sub in group.findall("locationgroup"):
            group_visit(sub, metahost, node)

    for root in system.findall("systemtreenode"):
        visit(root, None, None, None)
    if not located:
        raise GridscopeError(path, "anchor.xml has no locations")
    located.sort()
    ranks = sorted(processes)
    locations = make_locations(ranks, [processes[r][0] for r in ranks],
                               [processes[r][1] for r in ranks])
    return [rank for _, rank in located], locations


def _to_callpath_exclusive(defs, stored, cnodes):
    position = {id(c): i for i, c in enumerate(cnodes)}
    parents = np.array([position[id(c.parent)] if c.parent is not None else -1 for c in cnodes])
    has_parent = parents >= 0
    for d in _walk_defs(defs):
        if d.kind == "INCLUSIVE" and d.metric.additive and d.metric.uniq_name in stored:
            inclusive = stored[d.metric.uniq_name]
            exclusive = inclusive.copy()
            np.subtract.at(exclusive, parents[has_parent], inclusive[has_parent])
            stored[d.metric.uniq_name] = exclusive


def _to_metric_exclusive(defs, stored) -> dict[str, np.ndarray]:
    own = {}
    for d in _walk_defs(defs):
        name = d.metric.uniq_name
        if name not in stored:
            continue
        values = stored[name].copy()
        if d.metric.additive:
            for child in d.children:
                if child.metric.additive and child.metric.uniq_name in stored:
                    values -= stored[child.metric.uniq_name]
        own[name] = values
    return own


def _experiment(defs, own, cnodes, loc_ranks, locations, attrs) -> Experiment:
    def build(d: _MetricDef) -> Metric | None:
        kids = tuple(k for k in (build(c) for c in d.children) if k is not None)
        if d.metric.uniq_name not in own and not kids:
            return None
        m = d.metric
        return Metric(m.uniq_name, m.disp_name, m.uom, m.descr, m.url, m.dtype, kids)

    metrics = tuple(m for m in (build(d) for d in defs) if m is not None)
    paths = list(dict.fromkeys(c.path for c in cnodes))
    path_index = {p: i for i, p in enumerate(paths)}
    cnode_to_path = np.array([path_index[c.path] for c in cnodes])
    rank_values = np.array(sorted(set(loc_ranks)))
    col_to_rank = np.searchsorted(rank_values, np.array(loc_ranks))
    frames = []
    for name, values in own.items():
        # Same call path twice (cnode parameters) or several threads: sum them.
        merged = np.zeros((len(paths), rank_values.size))
        np.add.at(merged, (cnode_to_path[:, None], col_to_rank[None, :]), values)
        rows, cols = np.nonzero(merged)
        if rows.size:
            frames.append(pd.DataFrame({
                METRIC: name, CALLPATH: np.array(paths, dtype=object)[rows],
                RANK: rank_values[cols].astype("int32"), VALUE: merged[rows, cols]}))
    severities = pd.concat(frames, ignore_index=True) if frames else empty_severities()
    if frames:
        severities[METRIC] = severities[METRIC].astype("object")
    return Experiment(metrics=metrics, callpaths=tuple(paths), locations=locations,
                      severities=severities, attrs=attrs)
