"""What fixing a finding would buy, predicted: `gridscope predict` replays the recorded run on
its simulated grid twice, as recorded and with the culprit's call path on the culprit ranks
taking its peers' average time (`--speedup REGION@RANKS=FACTOR`); the gain is the difference
of the two predicted durations (docs/root-causes.md, "Findings"). Only computation culprits
in a user region that other ranks run too can be sped up that way; the others keep
`gain_s` null."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import tempfile
from pathlib import Path
from typing import Callable

from gridscope.errors import GridscopeError

MAX_FINDINGS = 3  # the findings the report's summary shows
# (`gridscope analyze` calls this after the analysis: the analysis itself never replays, so
# that `gridscope predict`, which analyses its replay, does not depend on it)
GAIN_BASIS = "predicted"


def _predicted_duration(trace: Path, out: Path, speedups: list[str]) -> float:
    from gridscope.predict import driver

    with contextlib.redirect_stderr(io.StringIO()):  # the replay's "trace: ..." lines
        summary = driver.run(driver.Options(trace=trace, output=out, speedups=driver.parse_speedups(speedups),
                                            force=True))
    duration = summary.get("duration_s")
    if duration is None:
        raise GridscopeError(out, "the prediction has no duration")
    return float(duration)


def predict_gains(trace: Path, speedups: list[str | None],
                  progress: Callable[[str], None] = lambda _t: None) -> list[float | None]:
    """The predicted gain of each finding with a speed-up (None where there is none)."""
    wanted = [s for s in speedups if s]
    if not wanted:
        return [None] * len(speedups)
    scratch = Path(tempfile.mkdtemp(prefix="gridscope-gains-"))
    try:
        progress("predicting the run as recorded")
        base = _predicted_duration(trace, scratch / "as-recorded", [])
        gains = []
        for i, spec in enumerate(speedups):
            if not spec:
                gains.append(None)
                continue
            progress(f"predicting finding {i + 1} fixed")
            gains.append(base - _predicted_duration(trace, scratch / f"finding-{i + 1}", [spec]))
        return gains
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def wanted(gains: bool | None, summary: dict) -> bool:
    """Predicted gains when asked (GAINS True), or by default (None) when a finding has a
    what-if and the run was simulated on a platform that `gridscope predict` can replay it
    on (its record.json names one)."""
    from gridscope.predict.source import resolve

    if gains is False or not any(f.get("what_if") for f in summary.get("findings") or []):
        return False
    if gains:
        return True
    try:
        return resolve(Path(summary["trace"])).platform is not None
    except GridscopeError:
        return False


def add_gains(folder: Path, summary: dict, progress: Callable[[str], None] = lambda _t: None) -> dict:
    """SUMMARY with the predicted `gain_s` of its first findings that have a `what_if`,
    written to FOLDER/summary.json. A prediction that fails leaves its gain null and says
    why in `gain_note`."""
    findings = [dict(f) for f in summary.get("findings") or []]
    specs = [f.get("what_if") for f in findings[:MAX_FINDINGS]]
    try:
        gains = predict_gains(Path(summary["trace"]), specs, progress)
        note = None
    except GridscopeError as err:
        gains, note = [None] * len(specs), str(err)
    for f, gain in zip(findings, gains):
        f["gain_s"] = gain
        f["gain_basis"] = GAIN_BASIS if gain is not None else None
        if note and f.get("what_if"):
            f["gain_note"] = note
    out = dict(summary, findings=findings)
    (folder / "summary.json").write_text(json.dumps(out, indent=1) + "\n")
    return out
