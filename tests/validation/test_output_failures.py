"""Every output failure is one line, exit 2, nothing left behind (issue 24 item 4): a
read-only and a full file system (a bind mount and a tiny tmpfs in a private mount
namespace), a file-size limit, a location that cannot be created, an existing file as
the output folder, and SIGTERM during an analysis. Before: ~20 of these were "internal
error" (exit 70), and SIGTERM left OUT/.engine/."""

from __future__ import annotations

import os
import resource
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from faultkit import MPI_ENV, Outcome, make_trace, ring_spec, rng, run

# command name -> (arguments for TRACE, RUN and OUT, whether OUT is a folder)
COMMANDS = {
    "analyze": (lambda t, r, o: ["analyze", t, "-o", o, "-q"], True),
    "diff": (lambda t, r, o: ["diff", r, r, "-o", o], True),
    "report": (lambda t, r, o: ["report", r, "-o", o], False),
    "export-perfetto": (lambda t, r, o: ["export", r, "--format", "perfetto", "-o", o], False),
    "export-otf2": (lambda t, r, o: ["export", r, "--format", "otf2", "-o", o], True),
    "export-parquet": (lambda t, r, o: ["export", t, "--format", "parquet", "-o", o], False),
    "predict": (lambda t, r, o: ["predict", t, "-o", o, "--platform", "grid5000-2", "--placement", "block"], True),
    "merge": (lambda t, r, o: ["merge", t, "-o", o], True),
    "platform": (lambda t, r, o: ["platform", "viola", "-o", o], False),
}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """A small trace and its analysis, world-readable (the mount tests run them as they are)."""
    base = tmp_path_factory.mktemp("inputs")
    trace = make_trace(ring_spec(rng("outputs")), base / "trace")
    done = run("analyze", trace, "-o", base / "run", "-q")
    assert done.returncode == 0, done.stderr
    return trace, base / "run"


def _private_mount(kind: str, folder: Path, argv: list[str]) -> tuple[subprocess.CompletedProcess, list[str]]:
    """Runs gridscope ARGV with FOLDER read-only ("ro") or a full 4 KiB tmpfs ("full") in a
    private mount namespace; returns the run and what FOLDER holds afterwards."""
    mount = (f"mount --bind {folder} {folder} && mount -o remount,bind,ro {folder}" if kind == "ro"
             else f"mount -t tmpfs -o size=4k gs-full {folder}")
    cmd = " ".join(shlex.quote(str(a)) for a in [sys.executable, "-m", "gridscope", *argv])
    script = f"{mount} || exit 99\n{cmd}\nrc=$?\necho '{_LEFT}'; ls -A {folder}\nexit $rc\n"
    proc = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True,
                          env=dict(os.environ, **MPI_ENV))
    stdout, _, left = proc.stdout.partition(_LEFT)
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, proc.stderr), left.split()


_LEFT = "--- left in the folder:"


def _can_mount() -> bool:
    probe = subprocess.run(["unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=4k gs-probe /mnt"],
                           capture_output=True)
    return probe.returncode == 0


needs_mount = pytest.mark.skipif(not _can_mount(), reason="no private mount namespace (unshare -m) here")


@needs_mount
@pytest.mark.parametrize("kind", ["ro", "full"])
@pytest.mark.parametrize("command", COMMANDS)
def test_read_only_or_full_file_system(inputs, tmp_path, command, kind):
    trace, run_dir = inputs
    args, _ = COMMANDS[command]
    folder = tmp_path / "mnt"
    folder.mkdir()
    out = folder / "out"
    proc, left = _private_mount(kind, folder, args(trace, run_dir, out))
    assert proc.returncode != 99, "mount failed"
    done = Outcome(proc, None, f"{command} onto a {kind} file system", existed=False)
    if kind == "full" and proc.returncode == 0:  # it fitted (a small file): then it is all there
        assert left == ["out"] and out.name in proc.stdout + proc.stderr, done.why()
        return
    done.refused(where=folder)  # names the output (or the folder it would be made in)
    assert left == [], f"left behind: {left}\n{done.why()}"


def _fsize_limit():
    resource.setrlimit(resource.RLIMIT_FSIZE, (512, 512))


@pytest.mark.parametrize("command", COMMANDS)
def test_file_size_limit(inputs, tmp_path, command):
    trace, run_dir = inputs
    args, _ = COMMANDS[command]
    out = tmp_path / "out"
    done = Outcome(run(*args(trace, run_dir, out), preexec_fn=_fsize_limit), out, f"{command} under ulimit -f",
                   existed=False)
    done.refused(problem="File too large")
    # the output, or the folder it is written in (the export's working files are made there)
    assert done.lines[0].startswith((f"gridscope: {out}", f"gridscope: {out.parent}:")), done.why()
    assert sorted(p.name for p in tmp_path.iterdir()) == [], "left behind"


@pytest.mark.parametrize("command", COMMANDS)
def test_a_location_that_cannot_be_created(inputs, command):
    trace, run_dir = inputs
    args, _ = COMMANDS[command]
    out = Path("/sys/gridscope-test/out")  # sysfs: no new folders, even for root
    done = Outcome(run(*args(trace, run_dir, out)), out, f"{command} into /sys", existed=False)
    done.refused(where="/sys/gridscope-test")


@pytest.mark.parametrize("command", [c for c, (_, folder) in COMMANDS.items() if folder])
def test_an_existing_file_as_the_output_folder(inputs, tmp_path, command):
    trace, run_dir = inputs
    args, _ = COMMANDS[command]
    out = tmp_path / "a-file"
    out.write_text("mine\n")
    done = Outcome(run(*args(trace, run_dir, out)), out, f"{command} -o FILE", existed=True)
    done.refused(where=out)
    assert out.read_text() == "mine\n"


def test_a_failed_run_into_an_existing_folder_leaves_only_what_was_there(inputs, tmp_path):
    trace, _ = inputs
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine\n")
    done = Outcome(run("analyze", trace, "-o", out, "-q", preexec_fn=_fsize_limit), out, "analyze into a folder",
                   existed=True)
    done.refused(where=out, problem="File too large")
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt"]


def _terminate_when(proc: subprocess.Popen, ready) -> None:
    while not ready() and proc.poll() is None:  # no deadline: a loaded machine is slow, not hung
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)


def test_sigterm_while_the_engine_runs_stops_it_and_leaves_nothing(inputs, tmp_path):
    trace, _ = inputs
    launcher = tmp_path / "slow-launcher"
    pid_file = tmp_path / "launcher.pid"
    launcher.write_text(f"#!/bin/sh\necho $$ > {pid_file}\nexec sleep 100000\n")
    launcher.chmod(0o755)
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "gridscope", "analyze", str(trace), "-o", str(out), "-q",
                             "--launcher", str(launcher)], stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, **MPI_ENV))
    _terminate_when(proc, lambda: pid_file.exists() and pid_file.read_text().strip())
    _, stderr = proc.communicate()
    assert proc.returncode == 143 and stderr.strip() == "gridscope: terminated", stderr
    assert not out.exists(), "OUT/.engine left behind"
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text()), 0)  # the engine's launcher was stopped and reaped


def test_sigterm_before_the_engine_leaves_nothing(inputs, tmp_path):
    trace, _ = inputs
    fifo = tmp_path / "map.json"
    os.mkfifo(fifo)  # reading the metahost map blocks: the scratch folder exists by then
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "gridscope", "analyze", str(trace), "-o", str(out), "-q",
                             "--metahosts", str(fifo)], stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, **MPI_ENV))
    _terminate_when(proc, lambda: (out / ".engine").exists())
    _, stderr = proc.communicate()
    assert proc.returncode == 143 and stderr.strip() == "gridscope: terminated", stderr
    assert not out.exists()
