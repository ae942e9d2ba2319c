"""The SMPI build of the collector (libgridscope_collector_smpi.a) records every simulated
rank into one archive; metahosts come from the simulated hosts' netzones."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from gridscope import native
from tests.collector import otf2text

PLATFORM = """<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="world" routing="Full">
    <cluster id="alpha" prefix="a-" suffix="" radical="0-1" speed="1Gf" bw="10GBps"
             lat="1us" router_id="alpha-router"/>
    <cluster id="beta" prefix="b-" suffix="" radical="0-1" speed="1Gf" bw="10GBps"
             lat="1us" router_id="beta-router"/>
    <link id="wan" bandwidth="1GBps" latency="5ms"/>
    <zoneRoute src="alpha" dst="beta" gw_src="alpha-router" gw_dst="beta-router">
      <link_ctn id="wan"/>
    </zoneRoute>
  </zone>
</platform>
"""


@pytest.mark.slow
def test_simulated_run_records_zones_as_metahosts(build_app, tmp_path):
    if shutil.which("smpicc") is None:
        pytest.fail("smpicc is missing (make install installs SimGrid)")
    lib = native.library("libgridscope_collector_smpi.a")
    otf2_libs = subprocess.run(["pkg-config", "--libs", "otf2"], capture_output=True,
                               text=True, check=True).stdout.split()
    app = build_app("pattern", "-Wl,--whole-archive", str(lib), "-Wl,--no-whole-archive",
                    *otf2_libs, compiler="smpicc")
    (tmp_path / "p.xml").write_text(PLATFORM)
    (tmp_path / "hosts").write_text("a-0\na-1\nb-0\nb-1\n" * 2)
    out = tmp_path / "trace"
    env = dict(os.environ, GRIDSCOPE_TRACE_DIR=str(out))
    env.pop("GRIDSCOPE_METAHOST", None)
    env.pop("GRIDSCOPE_METAHOST_MAP", None)
    proc = subprocess.run(["smpirun", "-platform", str(tmp_path / "p.xml"), "-hostfile",
                           str(tmp_path / "hosts"), "-np", "8",
                           "--cfg=smpi/simulate-computation:no", str(app), "1"],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "pattern done" in proc.stdout
    anchor = out / "traces.otf2"
    check = otf2text.validate(anchor)
    assert check.returncode == 0, check.stderr
    defs = otf2text.definitions(anchor)
    nodes = {i: a for k, i, a in defs if k == "SYSTEM_TREE_NODE"}
    machines = sorted(a["Name"].split('"')[1] for a in nodes.values()
                      if a["Class"].split('"')[1] == "machine")
    hosts = sorted(a["Name"].split('"')[1] for a in nodes.values()
                   if a["Class"].split('"')[1] == "node")
    assert machines == ["alpha", "beta"]
    assert hosts == ["a-0", "a-1", "b-0", "b-1"]
    evts = otf2text.events(anchor)
    assert sorted(evts) == list(range(8))
    for ev in evts.values():
        assert otf2text.region_counts(ev)["MPI_Allreduce"] == 2
        otf2text.check_nesting(ev)
    # One simulated clock: the synchronisation finds nothing to correct.
    offsets = otf2text.clock_offsets(anchor)
    assert all(len(v) == 2 and v[0][1] == 0 and v[1][1] == 0 for v in offsets.values())
