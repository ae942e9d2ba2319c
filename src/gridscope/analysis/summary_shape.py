"""The types a summary.json's values must have where the readers use them (view, export,
gridscope.load): a string where a number belongs is an input error naming the file, not a
TypeError deep inside a reader. Keys that are absent are the readers' business (older
folders lack some); keys that are present must have their type."""

from __future__ import annotations

from pathlib import Path

from gridscope.errors import GridscopeError

NUMBER, TEXT, OBJECT, LIST = "a number", "a string", "an object", "a list"

TOP = {
    "trace": TEXT, "rules": TEXT, "ranks": NUMBER, "events": NUMBER, "total_time_s": NUMBER, "mpi_time_s": NUMBER,
    "duration_s": NUMBER, "init_finalize_s": NUMBER, "clock_violations": NUMBER, "incomplete_collectives": NUMBER,
    "messages": NUMBER, "collectives": NUMBER, "byte_mismatches": NUMBER,
    "metahosts": OBJECT, "patterns": OBJECT, "run": OBJECT, "time_correction": OBJECT, "unmatched_messages": OBJECT,
    "thread_locations": OBJECT, "unanalysed_locations": OBJECT, "repaired_regions": OBJECT,
    "root_cause_analysis": OBJECT, "wait_classes": OBJECT, "analysis": OBJECT,
    "findings": LIST, "threads": LIST, "by_callpath": LIST, "by_metahost": LIST, "p2p": LIST, "wan_links": LIST,
    "root_causes": LIST, "cause_pairs": LIST, "critical_path": LIST, "warnings": LIST,
}
# keys the readers use without a check for null; the others may be null ("not known":
# duration_s without MPI_Init, findings without root causes), as may row fields
NOT_NULL = {"trace", "ranks", "total_time_s", "mpi_time_s", "metahosts", "patterns", "p2p", "by_callpath",
            "by_metahost", "critical_path", "threads", "time_correction", "unmatched_messages"}
# fields of the rows of these lists
ROWS = {
    "p2p": {"from": TEXT, "to": TEXT, "bytes": NUMBER, "messages": NUMBER, "max_rate_Bps": NUMBER,
            "min_transfer_s": NUMBER},
    "by_callpath": {"pattern": TEXT, "class": TEXT, "callpath": TEXT, "seconds": NUMBER},
    "by_metahost": {"pattern": TEXT, "class": TEXT, "metahost": TEXT, "seconds": NUMBER},
    "critical_path": {"callpath": TEXT, "metahost": TEXT, "seconds": NUMBER, "imbalance_s": NUMBER},
    "threads": {"time_s": NUMBER, "mpi_s": NUMBER, "waiting_s": NUMBER},
    "findings": {"cause": OBJECT, "cost_s": NUMBER, "patterns": LIST, "advice": TEXT},
    "wan_links": {"from": TEXT, "to": TEXT, "messages": NUMBER, "bytes": NUMBER},
}
# fields of a finding's cause (story.finding_title reads them)
CAUSE = {"kind": TEXT, "callpath": TEXT, "metahost": TEXT, "ranks": LIST}


def _is(value, kind: str) -> bool:
    if kind == NUMBER:
        # NaN passes: the viewer shows it as missing (a type check, not a plausibility one)
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, {TEXT: str, OBJECT: dict, LIST: list}[kind])


def _nullable(name: str) -> bool:
    if name.endswith("]"):  # a row
        return False
    if "[" in name:  # a row's field
        return True
    return "." not in name and name not in NOT_NULL  # metahosts.X and patterns.X.Y never


def check(data, where: str | Path) -> dict:
    """Raises one GridscopeError naming WHERE for the first value of the wrong type; returns DATA."""
    if not isinstance(data, dict):
        raise GridscopeError(where, "summary is not a JSON object")

    def need(value, kind: str, name: str) -> None:
        if not _is(value, kind) and not (value is None and _nullable(name)):
            raise GridscopeError(where, f"{name} is {value!r:.40} where {kind} belongs")

    for key, kind in TOP.items():
        if key in data:
            need(data[key], kind, key)
    for name, count in data.get("metahosts", {}).items():
        need(count, NUMBER, f"metahosts.{name}")
    for pattern, split in data.get("patterns", {}).items():
        need(split, OBJECT, f"patterns.{pattern}")
        for cls, value in split.items():
            need(value, NUMBER, f"patterns.{pattern}.{cls}")
    for key, fields in ROWS.items():
        for i, row in enumerate(data.get(key) or []):
            need(row, OBJECT, f"{key}[{i}]")
            for field, kind in fields.items():
                if field in row:
                    need(row[field], kind, f"{key}[{i}].{field}")
    for i, finding in enumerate(data.get("findings") or []):
        for field, kind in CAUSE.items():
            need(finding.get("cause", {}).get(field), kind, f"findings[{i}].cause {field}")
    return data
