"""`gridscope diff BASE NEW`: the difference experiment NEW − BASE written as a folder.

OUT gets ``diff.cubex`` (and the same file as ``profile.cubex``), ``diff.json`` and a
``summary.json`` whose numbers are the differences, so OUT is itself an analysis folder
(closure) that report, view and diff accept.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from gridscope.cube import write_cubex
from gridscope.cube.algebra import subtract
from gridscope.diff.changes import largest_changes
from gridscope.diff.runs import PROFILE, SUMMARY, AnalysisRun, load_run
from gridscope.diff.summary import diff_summary
from gridscope.errors import GridscopeError

DIFF_CUBE = "diff.cubex"
DIFF_JSON = "diff.json"


def _write_json(path: Path, data: dict) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(data, indent=1, allow_nan=False) + "\n")
    os.replace(tmp, path)


def rules_warnings(base_summary: dict, new_summary: dict) -> list[str]:
    """A line when BASE and NEW were analysed under different --rules (docs/root-causes.md,
    "Rules"): part of the difference is then the rules', not the runs'. Folders from before
    summary.json named its rules are not compared."""
    base_rules, new_rules = base_summary.get("rules"), new_summary.get("rules")
    if base_rules is None or new_rules is None or base_rules == new_rules:
        return []
    return [f"BASE was analysed with --rules {base_rules} and NEW with --rules {new_rules}: "
            "the wait states and root causes they charge differently count as changes"]


def diff_runs(base_folder: str | Path, new_folder: str | Path, out: str | Path, *,
              collapse: bool = False, top: int = 20) -> dict:
    """Compute NEW − BASE into OUT; returns the diff.json contents."""
    base, new = load_run(base_folder), load_run(new_folder)
    out = Path(out)
    for run in (base, new):
        if out.resolve() == run.folder.resolve():
            raise GridscopeError(out, "the output folder must differ from BASE and NEW")
    base_exp, new_exp = base.experiment(), new.experiment()
    n_base, n_new = len(base_exp.locations), len(new_exp.locations)
    difference = subtract(new_exp, base_exp, collapse=collapse)
    meta = {"base": str(base.folder.resolve()), "new": str(new.folder.resolve()),
            "collapsed_ranks": collapse, "operation": "new - base"}
    summary = diff_summary(base.summary, new.summary, meta)
    base_total = float(base.summary["total_time_s"])
    result = {
        **meta,
        "base_total_time_s": base_total,
        "new_total_time_s": float(new.summary["total_time_s"]),
        "total_time_s": summary["total_time_s"],
        "mpi_time_s": summary["mpi_time_s"],
        "patterns": summary["patterns"],
        "by_callpath": summary["by_callpath"],
        "by_metahost": summary["by_metahost"],
        "p2p": summary["p2p"],
        "root_causes": summary["root_causes"],
        "cause_pairs": summary["cause_pairs"],
        "wait_classes": summary["wait_classes"],
        "critical_path": summary["critical_path"],
        "cube_changes": largest_changes(difference, base_total, top=max(top, 50)),
        "ranks": {"base": n_base, "new": n_new},
        "story": summary["story"],
        "warnings": rules_warnings(base.summary, new.summary),
    }
    out.mkdir(parents=True, exist_ok=True)
    write_cubex(difference, out / DIFF_CUBE)
    shutil.copyfile(out / DIFF_CUBE, out / PROFILE)
    _write_json(out / DIFF_JSON, result)
    _write_json(out / SUMMARY, summary)
    return result


def default_out(base: Path, new: Path) -> Path:
    return Path(f"diff-{Path(base).resolve().name}-{Path(new).resolve().name}")


__all__ = ["diff_runs", "default_out", "AnalysisRun", "DIFF_CUBE", "DIFF_JSON"]
