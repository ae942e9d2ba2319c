"""Helpers of the validation, fault and fuzz tests (issue 24): damaging traces, running
gridscope, and the one check every outcome must pass.

Seed: GRIDSCOPE_FUZZ_SEED if set, else a fresh one; pytest prints it in its header and
every failure message repeats it, so `GRIDSCOPE_FUZZ_SEED=N make test` replays a run.
"""

from __future__ import annotations

import json
import os
import random
import struct
import subprocess
import sys
from pathlib import Path

SEED = int(os.environ.get("GRIDSCOPE_FUZZ_SEED") or random.SystemRandom().randrange(1, 2**31))
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_rmaps_base_oversubscribe": "1", "OMPI_MCA_mpi_yield_when_idle": "1"}
OTF2_TIMESTAMP_RECORD = 0x05  # OTF2's buffer record holding the next events' 8-byte time


def rng(name: str) -> random.Random:
    """A generator of its own for each test: one test's draws do not shift another's."""
    return random.Random(f"{SEED}:{name}")


def run(*args, preexec_fn=None, **env_extra) -> subprocess.CompletedProcess:
    """`python -m gridscope ARGS` as users run it (no timeout: a loaded machine is slow, not hung)."""
    env = dict(os.environ, **MPI_ENV, **env_extra)
    return subprocess.run([sys.executable, "-m", "gridscope", *map(str, args)], capture_output=True, text=True,
                          errors="replace", env=env, preexec_fn=preexec_fn)


def timestamps(evt: Path, lo: int = 0, hi: int = 2**63) -> list[tuple[int, int]]:
    """(offset, value) of each OTF2 timestamp record of an event file whose value lies in
    [lo, hi] (values of a trace's span: a stray 0x05 byte in other data rarely is one)."""
    data = evt.read_bytes()
    found = []
    for i in range(len(data) - 8):
        if data[i] == OTF2_TIMESTAMP_RECORD:
            value = struct.unpack_from("<Q", data, i + 1)[0]
            if lo <= value <= hi:
                found.append((i, value))
    return found


def set_timestamp(evt: Path, offset: int, value: int) -> None:
    data = bytearray(evt.read_bytes())
    struct.pack_into("<Q", data, offset + 1, value)
    evt.write_bytes(bytes(data))


def flip(path: Path, offset: int, bit: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 1 << bit
    path.write_bytes(bytes(data))


class Outcome:
    """What one command did; `ok()` and `refused()` assert the house rules."""

    def __init__(self, proc: subprocess.CompletedProcess, out: Path | None, case: str, existed: bool):
        self.proc, self.out, self.case, self.existed = proc, out, case, existed
        self.lines = [line for line in proc.stderr.splitlines() if line.strip()]

    def why(self) -> str:
        return (f"[seed {SEED}] {self.case}: exit {self.proc.returncode}\nstderr:\n{self.proc.stderr}"
                f"\nstdout (end):\n{self.proc.stdout[-2000:]}")

    def sane(self) -> None:
        """No traceback, no internal error, no crash: exit 0 or a one-line refusal."""
        assert "Traceback" not in self.proc.stderr, self.why()
        assert "internal error" not in self.proc.stderr, self.why()
        assert self.proc.returncode in (0, 2), self.why()
        if self.proc.returncode == 2:
            self.refused()

    def refused(self, where: str | Path | None = None, problem: str | None = None) -> None:
        """One line `gridscope: WHERE: PROBLEM`, exit 2, nothing left behind, and never an
        engine-internal file named."""
        assert self.proc.returncode == 2, self.why()
        assert len(self.lines) == 1 and self.lines[0].startswith("gridscope: "), self.why()
        assert ".engine" not in self.lines[0], self.why()
        if where is not None:
            assert self.lines[0].startswith(f"gridscope: {where}"), self.why()
        if problem is not None:
            assert problem in self.lines[0], self.why()
        if self.out is not None and not self.existed:
            assert not os.path.lexists(self.out), f"{self.out} left behind\n{self.why()}"

    def summary(self) -> dict:
        return json.loads((self.out / "summary.json").read_text())


def analyze(trace: Path, out: Path, *extra, case: str = "") -> Outcome:
    existed = out.exists()
    return Outcome(run("analyze", trace, "-o", out, "-q", *extra), out, case or f"analyze {trace}", existed)


def check_analysis(outcome: Outcome) -> None:
    """An analysis that succeeded: no impossible figure, nothing dropped without a warning."""
    from gridscope.analysis.validate import impossible

    outcome.sane()
    if outcome.proc.returncode != 0:
        return
    s = outcome.summary()
    assert impossible(s) is None, f"impossible result {impossible(s)}\n{outcome.why()}"
    warned = "\n".join(line for line in outcome.lines if line.startswith("gridscope: warning:"))
    for count, words in ((s["incomplete_collectives"], "collective instances could not be matched"),
                         (s.get("byte_mismatches", 0), "byte count that differs"),
                         (s["unmatched_messages"]["sends"] + s["unmatched_messages"]["receives"], "without a")):
        if count:
            assert f"{count}" in warned and words in warned, f"{count} dropped silently ({words})\n{outcome.why()}"


def ring_spec(r: random.Random, ranks: int = 3, iterations: int = 6, *, extra_barrier: tuple[int, int] | None = None,
              wrong_bytes: tuple[int, int, int] | None = None) -> str:
    """A consistent trace as gs-tracegen spec: each iteration every rank computes a random
    while, sends to the next rank, receives from the previous one, then all meet in an
    MPI_Barrier. Two metahosts. `extra_barrier=(rank, iteration)` gives that rank one
    barrier more there (the damage of a duplicated event); `wrong_bytes=(rank, iteration,
    bytes)` makes that rank's receive claim another byte count than was sent."""
    lines = [f"rank {i} {'ab'[i * 2 // ranks]} n{i}" for i in range(ranks)]
    now = [0] * ranks
    events: list[list[str]] = [[f"{i} 0 enter main"] for i in range(ranks)]
    for it in range(iterations):
        sent = []
        for i in range(ranks):
            now[i] += r.randint(5, 60)
            sent.append(now[i])
            events[i].append(f"{i} {now[i]} {now[i] + 2} send MPI_Send {(i + 1) % ranks} {it} 64")
            now[i] += 2
        for i in range(ranks):
            src = (i - 1) % ranks
            enter = now[i] + r.randint(0, 5)
            leave = max(enter, sent[src]) + r.randint(1, 4)
            nbytes = wrong_bytes[2] if wrong_bytes and wrong_bytes[:2] == (i, it) else 64
            events[i].append(f"{i} {enter} {leave} recv MPI_Recv {src} {it} {nbytes}")
            now[i] = leave
        begins = [now[i] + r.randint(1, 30) for i in range(ranks)]
        end = max(begins) + 1
        for i in range(ranks):
            events[i].append(f"{i} {begins[i]} {end + i} coll MPI_Barrier MPI_COMM_WORLD -1 0 0")
            now[i] = end + i
            if extra_barrier == (i, it):
                events[i].append(f"{i} {now[i] + 1} {now[i] + 3} coll MPI_Barrier MPI_COMM_WORLD -1 0 0")
                now[i] += 3
    for i in range(ranks):
        events[i].append(f"{i} {now[i] + 10} leave")
    return "\n".join(lines + [e for rank in events for e in rank]) + "\n"


def make_trace(spec: str, folder: Path) -> Path:
    """Writes SPEC with gs-tracegen into FOLDER (a fresh folder) and returns it."""
    from gridscope import native

    folder.parent.mkdir(parents=True, exist_ok=True)
    spec_file = folder.with_suffix(".spec")
    spec_file.write_text(spec)
    subprocess.run([str(native.binary("gs-tracegen")), str(spec_file), str(folder)], check=True,
                   capture_output=True)
    return folder
