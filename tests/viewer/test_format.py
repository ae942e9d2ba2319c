"""The viewer's one unit convention (issue 27; viewer/static/js/format.js, after
gridscope/units.py): µs, ms, s; B, KiB, MiB, GiB; never "-0". Run by node on the module
itself, so the browser's formatting is what is checked."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

FORMAT_JS = Path(__file__).resolve().parents[2] / "viewer" / "static" / "js" / "format.js"

CASES = [  # (function, arguments, expected text)
    ("seconds", [2.5e-6], "2.500 µs"),
    ("seconds", [0.0125], "12.500 ms"),
    ("seconds", [3.25], "3.250 s"),
    ("seconds", [-4e-13], "0 s"),
    ("seconds", [0.0], "0 s"),
    ("seconds", [-0.0], "0 s"),
    ("seconds", [-2e-3], "-2.000 ms"),
    ("bytes", [8], "8 B"),
    ("bytes", [1536], "1.50 KiB"),
    ("bytes", [3 * 1024 ** 2], "3.00 MiB"),
    ("bytes", [5 * 1024 ** 3], "5.00 GiB"),
    ("percent", [-1e-9, 1], "0.0 %"),
    ("percent", [1, 4], "25.0 %"),
    ("ns", [1500], "1.500 µs"),
]


@pytest.mark.parametrize("fn,args,expected", CASES)
def test_one_unit_convention(fn, args, expected):
    if shutil.which("node") is None:
        pytest.fail("node is missing: install Debian's nodejs (Makefile TEST_DEB_PACKAGES)")
    script = (f"import * as f from {json.dumps(FORMAT_JS.as_uri())};"
              f"process.stdout.write(JSON.stringify(f[{json.dumps(fn)}](...{json.dumps(args)})));")
    proc = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == expected
