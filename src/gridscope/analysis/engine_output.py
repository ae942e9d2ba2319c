"""The engine's whole profile output read as one EngineOutput: severities, message pairs,
root causes (engine_files holds the file formats; this module joins the readers, so that
engine_files depends on none of the analyses)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from gridscope.analysis.engine_files import (CLASSES_BY_CODE, ENGINE_METRICS, PAIR_DTYPE, SEV_DTYPE, SEVERITY_FIELDS,
                                             EngineHead, EngineOutput, SeverityColumns, checked_callpaths, checked_codes,
                                             merge_pairs, sorted_by_severity)
from gridscope.analysis.root_causes import read_causes, read_wan_sources


def read_profile(folder: Path, head: EngineHead) -> EngineOutput:
    """Severities, message pairs and causes (root_causes.read_causes) of every process, merged."""
    parts: list[SeverityColumns] = []
    pairs = []
    for p, remap in enumerate(head.remaps):
        sev_file = folder / f"severities.{p}.bin"
        sev = np.fromfile(sev_file, dtype=SEV_DTYPE)
        callpaths = checked_callpaths(sev["cp"], remap, sev_file)
        parts.append(SeverityColumns(checked_codes(sev["metric"], len(ENGINE_METRICS), sev_file),
                                     checked_codes(sev["cls"], len(CLASSES_BY_CODE), sev_file),
                                     callpaths, sev["rank"].astype(np.int32), sev["value"], sev["thread"]))
        pairs.append(np.fromfile(folder / f"pairs.{p}.bin", dtype=PAIR_DTYPE))
    merged = (SeverityColumns(*(np.concatenate([getattr(part, f) for part in parts]) for f in SEVERITY_FIELDS))
              if parts else SeverityColumns.from_rows((), head.callpaths))
    # A fixed row order makes sums independent of how many engine processes ran.
    return EngineOutput(head.meta, head.callpaths, head.mpi_callpaths, sorted_by_severity(merged, head.callpaths),
                        merge_pairs(pairs, head.meta["metahosts"], float(head.meta.get("resolution", 1.0))),
                        read_causes(folder, head),
                        read_wan_sources(folder, head))
