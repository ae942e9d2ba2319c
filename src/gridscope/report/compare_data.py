"""`gridscope compare` results (compare.json): vanilla vs topology-aware collectives."""

from __future__ import annotations

import json
import math
from pathlib import Path

from gridscope.errors import GridscopeError

COMPARE_JSON = "compare.json"
WAITSTATES_JSON = "waitstates.json"
SAME = 0.005  # speed-ups within ±0.5 % count as "the same"
VARIANTS = ("vanilla_s", "topo_s", "auto_s", "bound_s")


def _time(value, where, what) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or value < 0:
        raise GridscopeError(where, f"{what} is not a non-negative number: {value!r}")
    return float(value)


def load_compare(path: str | Path) -> dict:
    """Read and check compare.json (PATH may be the file or the folder holding it)."""
    path = Path(path)
    if path.is_dir():
        path = path / COMPARE_JSON
    if not path.is_file():
        raise GridscopeError(path, "no such compare result (make one with `gridscope compare`)")
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise GridscopeError(path, f"not valid JSON ({err})") from None
    if not isinstance(data, dict) or not isinstance(data.get("rows"), list):
        raise GridscopeError(path, "compare result lacks a 'rows' list")
    rows = []
    for i, row in enumerate(data["rows"]):
        if not isinstance(row, dict) or not isinstance(row.get("op"), str):
            raise GridscopeError(path, f"rows[{i}] lacks an 'op' name")
        size = row.get("bytes")
        if isinstance(size, bool) or not isinstance(size, (int, float)) or size < 0:
            raise GridscopeError(path, f"rows[{i}].bytes is not a size: {size!r}")
        clean = {"op": row["op"], "bytes": int(size), "placement": str(row.get("placement", ""))}
        for key in VARIANTS:
            clean[key] = _time(row.get(key), path, f"rows[{i}].{key}")
        if clean["vanilla_s"] is None:
            raise GridscopeError(path, f"rows[{i}] lacks vanilla_s")
        best = min((clean[k] for k in ("topo_s", "auto_s") if clean[k] is not None),
                   default=None)
        clean["speedup"] = (clean["vanilla_s"] / best) if best else None
        rows.append(clean)
    order = {op: i for i, op in enumerate(dict.fromkeys(r["op"] for r in rows))}
    places = {p: i for i, p in enumerate(dict.fromkeys(r["placement"] for r in rows))}
    rows.sort(key=lambda r: (order[r["op"]], r["bytes"], places[r["placement"]]))
    return {"platform": str(data.get("platform", "")), "ranks": data.get("ranks"),
            "rows": rows, "path": str(path),
            "waitstates": load_waitstates(path.with_name(WAITSTATES_JSON))}


def load_waitstates(path: Path) -> dict[str, list[dict]]:
    """Wait states per collective mode (compare's waitstates.json), when it is there.

    Optional: a missing or malformed file leaves the comparison out of the report.
    """
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return {}
    if not isinstance(data, dict):
        return {}
    out = {}
    for placement, rows in data.items():
        if not isinstance(rows, list):
            continue
        clean = []
        for row in rows:
            if not isinstance(row, dict) or not isinstance(row.get("pattern"), str):
                continue
            values = {k: row.get(k) for k in ("vanilla_s", "topo_s", "auto_s")}
            if all(isinstance(v, (int, float)) or v is None for v in values.values()):
                clean.append({"pattern": row["pattern"], "class": str(row.get("class", "")),
                              **values})
        if clean:
            out[str(placement)] = clean
    return out


def compare_findings(compare: dict) -> dict:
    rows = [r for r in compare["rows"] if r["speedup"] is not None]
    faster = [r for r in rows if r["speedup"] > 1 + SAME]
    slower = [r for r in rows if r["speedup"] < 1 - SAME]
    best = max(rows, key=lambda r: r["speedup"], default=None)
    return {"cases": len(rows), "faster": len(faster), "slower": len(slower), "best": best}
