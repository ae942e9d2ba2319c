"""How long simulated runs take, and what tracing adds to them.

Builds metatrace twice (plain smpicc, and `gridscope cc --simulate` with the collector),
runs both on the viola preset with 24 ranks (the seed-002 layout) through the same smpirun
settings as `gridscope record`, and prints wall times and their ratio (baseline: the
untraced build, measured in the same run). Target (docs/testbed.md): a simulated demo run
takes seconds, and tracing at most doubles it.

    PYTHONPATH=src GRIDSCOPE_NATIVE_DIR=build/dev-native .venv/bin/python \
        benchmarks/testbed/simulation_speed.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
APPS = REPO / "testdata" / "apps"


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="gs-bench-testbed-") as tmp:
        run(Path(tmp))


def run(work: Path) -> None:
    from gridscope.testbed.placement import hosts_for_ranks
    from gridscope.testbed.platform import load_platform
    from gridscope.testbed.run import SIM_CONFIG
    from gridscope.testbed.simgrid_xml import platform_xml

    platform = load_platform("viola")
    (work / "platform.xml").write_text(platform_xml(platform))
    (work / "hostfile").write_text("\n".join(hosts_for_ranks(platform, None, "16,8")) + "\n")
    src = APPS / "metatrace" / "metatrace.c"
    plain, traced = work / "mt-plain", work / "mt-traced"
    subprocess.run(["smpicc", "-O2", f"-I{APPS / 'common'}", str(src), "-lm", "-o", str(plain)],
                   check=True, capture_output=True)
    subprocess.run([sys.executable, "-m", "gridscope", "cc", "--simulate", str(src),
                    f"-I{APPS / 'common'}", "-O2", "-lm", "-o", str(traced)], check=True)
    results = {}
    for name, binary in (("untraced", plain), ("traced", traced)):
        trace_dir = work / f"trace-{name}"
        env = dict(os.environ, GRIDSCOPE_TRACE_DIR=str(trace_dir))
        start = time.perf_counter()
        subprocess.run(["smpirun", "-platform", str(work / "platform.xml"), "-hostfile",
                        str(work / "hostfile"), "-np", "24", *SIM_CONFIG, str(binary),
                        "--opt", "0"], check=True, capture_output=True, env=env)
        results[name] = time.perf_counter() - start
    ratio = results["traced"] / results["untraced"]
    print(f"metatrace --opt 0, viola, 24 ranks: untraced {results['untraced']:.2f} s, "
          f"traced {results['traced']:.2f} s, ratio {ratio:.2f}")


if __name__ == "__main__":
    main()
