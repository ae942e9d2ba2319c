"""`gridscope view` at scale (issue 27): 1,024 ranks, ~100 M events.

One command generates the trace (gs-tracegen synth) and its analysis (gridscope analyze:
profile, wait states, critical path) once under --workdir, then measures in the same run:

- baseline: a raw read of the archive (`otf2-print --silent`, `gs-rawread`);
- the one-time native dump (`gridscope-tracetool dump`);
- "ready": from starting `gridscope view RUN` until the page in headless Chromium has
  body[data-ready], the trace read (body[data-loaded]), its first timeline picture and its
  window summary; cold (no .gridscope-cache) and warm;
- the latency of what the page asks for on zoom and pan: /api/timeline with all rows at
  --width px and /api/window, for the whole run, 1/10, 1/100, 1/1000 of it, and pans;
  beside each latency the server process's CPU time for the request (/proc, 10 ms steps),
  which a loaded machine inflates less than the wall-clock latency.

Figures are medians of --repeat runs (min and max beside them).

    PATH=.venv/bin:$PATH PYTHONPATH=src GRIDSCOPE_NATIVE_DIR=build/dev-native \\
        python benchmarks/viewer/bench_scale.py [--workdir /tmp/vscale] [--repeat 5]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent


def native(name: str) -> str:
    from gridscope.native import binary

    return str(binary(name))


def timed(cmd: list[str], **kw) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)
    return time.perf_counter() - t


def stats(values: list[float]) -> str:
    med = statistics.median(values)
    if len(values) == 1:
        return f"{med:.3f}"
    return f"{med:.3f} ({min(values):.3f}-{max(values):.3f})"


def prepare(work: Path, ranks: int, metahosts: int, iterations: int) -> tuple[Path, Path]:
    trace, run = work / "trace", work / "run"
    if not (trace / "traces.otf2").is_file():
        print(f"generating {ranks} ranks x {iterations} iterations into {trace} ...", flush=True)
        subprocess.run([native("gs-tracegen"), "synth", str(trace), "--ranks", str(ranks),
                        "--metahosts", str(metahosts), "--iterations", str(iterations)], check=True)
    if not (run / "summary.json").is_file():
        print(f"analysing into {run} ...", flush=True)
        t = time.perf_counter()
        subprocess.run(["gridscope", "analyze", str(trace), "-o", str(run)], check=True, stdout=subprocess.DEVNULL)
        print(f"  gridscope analyze: {time.perf_counter() - t:.1f} s", flush=True)
    return trace / "traces.otf2", run


class Browser:
    """bench_ready.mjs: one headless Chromium, one page load per URL."""

    def __init__(self):
        self.proc = subprocess.Popen(["node", str(HERE / "bench_ready.mjs")], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout.readline().strip() == "up", "headless Chromium did not start"

    def load(self, url: str) -> dict:
        self.proc.stdin.write(url + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def start_view(run: Path) -> tuple[subprocess.Popen, str, float]:
    """`gridscope view RUN --no-browser`; returns the process, its URL and the s until it printed it."""
    t = time.perf_counter()
    proc = subprocess.Popen(["gridscope", "view", str(run), "--no-browser"], stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    if " at http" not in line:
        proc.kill()
        raise SystemExit(f"gridscope view did not start: {line!r}")
    return proc, line.split(" at ", 1)[1].split()[0], time.perf_counter() - t


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    proc.wait(timeout=30)


def ready(browser: Browser, run: Path, cold: bool) -> dict:
    if cold:
        shutil.rmtree(run / ".gridscope-cache", ignore_errors=True)
    subprocess.run(["sync"])
    t = time.perf_counter()
    proc, url, listening = start_view(run)
    page = browser.load(url)
    total = time.perf_counter() - t
    stop(proc)
    if "error" in page:
        raise SystemExit(f"page did not get ready: {page['error']}")
    return {"listening": listening, "body": listening + page["body_ready_ms"] / 1e3,
            "loaded": listening + page["loaded_ms"] / 1e3,
            "timeline": listening + page["timeline_ms"] / 1e3, "all": total, "requests": page["requests"]}


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process PID so far (Linux /proc, clock ticks)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def get(port: int, path: str, pid: int) -> tuple[float, int, float]:
    """Latency (s), answer size (bytes) and the server's CPU time for it (s, 10 ms steps)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    cpu = cpu_seconds(pid)
    t = time.perf_counter()
    conn.request("GET", path)
    resp = conn.getresponse()
    body = resp.read()
    dt = time.perf_counter() - t
    conn.close()
    if resp.status != 200:
        raise SystemExit(f"{path}: HTTP {resp.status} {body[:200]!r}")
    return dt, len(body), cpu_seconds(pid) - cpu


def row(name: str, lat: list[tuple[float, int, float]]) -> str:
    return (f"{name:<34} {stats([a for a, _, _ in lat]):>28} {lat[0][1] / 1e6:7.2f} "
            f"{stats([c for _, _, c in lat]):>24}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/vscale"))
    ap.add_argument("--ranks", type=int, default=1024)
    ap.add_argument("--metahosts", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=8000, help="8000 at 1,024 ranks: 98 M events")
    ap.add_argument("--width", type=int, default=1600)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cold-repeat", type=int, default=None, help="cold loads (default: --repeat)")
    args = ap.parse_args()
    os.environ.setdefault("GRIDSCOPE_VIEWER_STATIC", str(REPO / "viewer" / "static"))
    args.workdir.mkdir(parents=True, exist_ok=True)
    anchor, run = prepare(args.workdir, args.ranks, args.metahosts, args.iterations)
    summary = json.loads((run / "summary.json").read_text())
    events = int(summary.get("events", 0))
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} "
          f"{os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} at start, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"trace: {args.ranks} ranks, {events:,} events, {args.repeat} repeats; medians (min-max), seconds\n")

    rows = []
    rep = args.repeat
    base = [timed(["otf2-print", "--silent", str(anchor)]) for _ in range(rep)]
    rows.append(("baseline: otf2-print --silent", stats(base)))
    raw = [timed([native("gs-rawread"), str(anchor)]) for _ in range(rep)]
    rows.append(("baseline: gs-rawread (libotf2 read, no output)", stats(raw)))
    dumps = []
    for _ in range(rep):
        out = args.workdir / "dump-bench"
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir()
        dumps.append(timed([native("gridscope-tracetool"), "dump", str(anchor), str(out)]))
        shutil.rmtree(out)
    rows.append(("one-time dump (gridscope-tracetool dump)",
                 f"{stats(dumps)}  = {statistics.median(dumps) / statistics.median(raw):.2f}x gs-rawread"))
    for line in rows:
        print(f"{line[0]:<58} {line[1]}", flush=True)

    browser = Browser()
    try:
        for cold in (True, False):
            n = (args.cold_repeat or rep) if cold else rep
            if not cold:
                ready(browser, run, False)  # page cache warm as well
            res = [ready(browser, run, cold) for _ in range(n)]
            kind = "cold (dump + load)" if cold else "warm (cache present)"
            for key, label in (("listening", "server listening"), ("body", "body[data-ready]"),
                               ("loaded", "trace read (data-loaded)"), ("timeline", "first timeline picture"),
                               ("all", "+ window summary")):
                print(f"ready {kind}: {label:<26} {stats([r[key] for r in res])}", flush=True)
            if not cold:
                by_path: dict[str, list[float]] = {}
                for r in res:
                    for q in r["requests"]:
                        by_path.setdefault(q["path"], []).append(q["ms"] / 1e3)
                for path, ms in by_path.items():
                    print(f"  page's {path:<22} {stats(ms)}")
    finally:
        browser.close()

    proc, url, _ = start_view(run)
    port = int(url.rstrip("/").rsplit(":", 1)[1])
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port)
        while True:  # the server reads the trace after it listens
            conn.request("GET", "/api/load")
            if not json.loads(conn.getresponse().read())["loading"]:
                break
            time.sleep(0.1)
        conn.request("GET", "/api/meta")
        meta = json.loads(conn.getresponse().read())
        nrows, dur = len(meta["rows"]), int(meta["duration_ns"])
        print(f"\nrequests ({nrows} rows at {args.width} px; warm server; window centred, pans by half a window)")
        print(f"{'request':<34} {'latency s':>28} {'MB':>7} {'server CPU s':>24}")
        for name in ("/api/meta", "/api/profile"):
            lat = [get(port, name, proc.pid) for _ in range(rep)]
            print(row(name, lat))
        for label, frac in (("whole run", 1.0), ("1/10", 0.1), ("1/100", 0.01), ("1/1000", 0.001)):
            span = max(int(dur * frac), 1000)
            t0 = (dur - span) // 2
            for api, extra in (("timeline", f"&width={args.width}&r0=0&r1={nrows}"), ("window", "")):
                lat = [get(port, f"/api/{api}?t0={t0}&t1={t0 + span}{extra}", proc.pid) for _ in range(rep)]
                print(row(f"/api/{api} {label}", lat))
            if frac == 1:  # taller rows (rows +) or a rank filter: the page asks for some rows only
                sub = f"/api/timeline?t0={t0}&t1={t0 + span}&width={args.width}&r0={nrows // 2}&r1={nrows // 2 + 64}"
                print(row(f"/api/timeline {label}, 64 rows", [get(port, sub, proc.pid) for _ in range(rep)]))
            if frac < 1:
                lat = []
                for k in range(1, rep + 1):  # each pan a window never asked before
                    a = t0 + k * span // 2
                    lat.append(get(port, f"/api/timeline?t0={a}&t1={a + span}&width={args.width}&r0=0&r1={nrows}",
                                   proc.pid))
                print(row(f"/api/timeline {label} pan", lat))
    finally:
        stop(proc)
    print(f"\nload average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
