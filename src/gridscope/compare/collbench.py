"""collbench (testdata/apps/collbench): the arguments of a run and its JSON output.

collbench sizes are bytes per rank (Bcast, Reduce, Allreduce) or per block (Gather,
Allgather, Alltoall), powers of two only. compare rows count Alltoall by each rank's whole
send buffer, so an Alltoall row of B bytes is collbench's block of B/n bytes; sizes are
rounded down to a power of two (at least 1), and a row's bytes say what was measured.

Every timed call starts at a common instant (collbench --common-start), not at each rank's
exit from the barrier before it: a barrier releases the ranks up to a WAN latency apart, by
an amount that depends on the barrier's algorithm (vanilla's, topo's), so timing from it
charged one collective with another's skew. A call is timed by what it adds after the last
arrival (collbench's after_last_us: last rank leaving minus last rank arriving, on the
common clock): with everyone on time, from the common instant to the last rank leaving,
the time the physical bound is defined for. With a late site (`--late SITE=SECONDS`,
compare --late-site/--late-by) the site's ranks arrive SECONDS after it; an on-time rank's
own time would count the offset, the same whatever the algorithm, so it is not counted.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from gridscope.errors import GridscopeError

SOURCE = Path("apps") / "collbench" / "collbench.c"
COMMON = Path("apps") / "common"
# how far ahead of rank 0's clock the common start lies: more than the barrier's release
# spread plus the broadcast of the start (vanilla on asym-3: about 0.15 s); simulated time,
# free in real time
START_GUARD_S = 1.0


@dataclass(frozen=True)
class Timing:
    op: str
    bench_bytes: int  # collbench's size (per rank or per block)
    seconds: float  # mean over the calls of the time from the last arrival to the last rank leaving


def _pow2_floor(n: int) -> int:
    return 1 << (max(n, 1).bit_length() - 1)


def bench_size(op: str, row_bytes: int, ranks: int) -> int:
    if op == "barrier":
        return 0
    if op == "alltoall":
        return _pow2_floor(row_bytes // ranks)
    return _pow2_floor(row_bytes)


def row_bytes(op: str, bench_bytes: int, ranks: int) -> int:
    if op == "barrier":
        return 0
    return bench_bytes * ranks if op == "alltoall" else bench_bytes


@dataclass(frozen=True)
class Late:
    site: str  # metahost whose ranks arrive late
    seconds: float  # by how much, after each timed call's barrier


def arguments(ops: list[str], sizes: list[int], ranks: int, json_path: Path,
              iterations: int = 2, warmup: int = 1, late: Late | None = None) -> list[str]:
    """collbench runs every power of two from --min to --max: cover all rows."""
    wanted = [bench_size(op, b, ranks) for op in ops for b in sizes if op != "barrier"]
    lo = min(wanted, default=1)
    hi = max(wanted, default=1)
    lo = 1 << (max(lo, 1).bit_length() - 1)  # a power of two at or below
    return ["--ops", ",".join(ops), "--min", str(lo), "--max", str(hi),
            "--iterations", str(iterations), "--warmup", str(warmup), "--json", str(json_path),
            "--common-start", "--late-guard", repr(START_GUARD_S),
            *(["--late", f"{late.site}={late.seconds!r}"] if late else [])]


def parse(path: Path) -> list[Timing]:
    """Every result's time: what the call adds after the last arrival (module docstring)."""
    try:
        doc = json.loads(path.read_text())
        timings = [Timing(r["op"], int(r["bytes"]), float(r["after_last_us"]) * 1e-6)
                   for r in doc["results"]]
        missed = sum(int(r.get("late_starts", 0)) for r in doc["results"])
    except FileNotFoundError:
        raise GridscopeError(path, "collbench wrote no results (did the run fail? see "
                             "smpirun.log next to it)") from None
    except (ValueError, KeyError, TypeError) as err:
        raise GridscopeError(path, f"not collbench output: {err}") from None
    if missed:
        raise GridscopeError(path, f"{missed} calls started after collbench's common start (its "
                             "--late-guard is shorter than the broadcast of the start time)")
    return timings


def lookup(timings: list[Timing], op: str, bench_bytes: int) -> float | None:
    for t in timings:
        if t.op == op and t.bench_bytes == bench_bytes:
            return t.seconds
    return None
