"""Viewer responsiveness on a trace of millions of events.

Synthesises a Score-P-layout trace (gs-tracegen synth), then measures in the same
run: the one-time native dump (events/s) against `otf2-print --silent` reading the same
archive (baseline), and the latency and size of /api/timeline answers for the whole run
and for zoomed windows (the level-of-detail path), served in-process.

    PYTHONPATH=src GRIDSCOPE_NATIVE_DIR=build/dev-native .venv/bin/python benchmarks/viewer/bench_timeline.py \
        [--ranks 64] [--iterations 8000] [--width 1600]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "viewer"))


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ranks", type=int, default=64)
    ap.add_argument("--iterations", type=int, default=8000)
    ap.add_argument("--width", type=int, default=1600)
    args = ap.parse_args()
    os.environ.setdefault("GRIDSCOPE_VIEWER_STATIC", str(REPO / "viewer" / "static"))

    from viewer_fixtures import synth_trace
    from gridscope.viewer.server import make_server
    from gridscope.viewer.trace import dump

    with tempfile.TemporaryDirectory(prefix="gs-bench-") as tmp:
        tmp = Path(tmp)
        t_synth, anchor = timed(lambda: synth_trace(tmp / "trace", args.ranks, 2, args.iterations))
        t_print, _ = timed(lambda: subprocess.run(["otf2-print", "--silent", str(anchor)], check=True,
                                                  capture_output=True))
        t_dump, _ = timed(lambda: dump(anchor, tmp / "dump"))
        events = json.loads((tmp / "dump" / "defs.json").read_text())["events"]
        shutil.rmtree(tmp / "dump")
        run = tmp / "run"
        run.mkdir()
        summary = {"ranks": args.ranks, "metahosts": {}, "trace": str(anchor)}
        (run / "summary.json").write_text(json.dumps(summary))
        def open_run():
            srv = make_server(run, "127.0.0.1", 0)
            srv.data.wait_loaded()  # includes the cached dump, read in the background
            return srv

        t_open, srv = timed(open_run)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        meta_t1 = srv.data.trace.duration_ns
        port = srv.server_address[1]

        def ask(t0, t1):
            conn = http.client.HTTPConnection("127.0.0.1", port)
            start = time.perf_counter()
            conn.request("GET", f"/api/timeline?t0={t0}&t1={t1}&width={args.width}&r0=0&r1={args.ranks}",
                         headers={"Host": f"127.0.0.1:{port}"})
            body = conn.getresponse().read()
            return time.perf_counter() - start, len(body)

        print(f"trace: {args.ranks} ranks, {events:,} events ({t_synth:.2f} s to synthesise)")
        print(f"baseline otf2-print --silent: {t_print:.2f} s ({events / t_print / 1e6:.2f} M events/s)")
        print(f"native dump: {t_dump:.2f} s ({events / t_dump / 1e6:.2f} M events/s, "
              f"{t_dump / t_print:.2f}x the baseline)")
        print(f"first `gridscope view` load (dump + open): {t_open:.2f} s")
        for label, frac in (("whole run", 1.0), ("1/10", 0.1), ("1/1000", 0.001), ("1/100000", 0.00001)):
            span = max(int(meta_t1 * frac), 1000)
            t0 = (meta_t1 - span) // 2
            ask(t0, t0 + span)  # warm the page cache
            lat, size = min(ask(t0, t0 + span) for _ in range(3))
            print(f"timeline {label:>9} of the run at {args.width} px x {args.ranks} rows: "
                  f"{lat * 1000:7.1f} ms, {size / 1e6:6.2f} MB")
        srv.shutdown()
        srv.server_close()


if __name__ == "__main__":
    main()
