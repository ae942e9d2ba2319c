"""docs/viewer.md shows the viewer with pictures benchmarks/viewer/screenshots.py made: each
one it references exists and is a PNG."""

from __future__ import annotations

import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_viewer_doc_pictures_exist():
    names = re.findall(r"\]\((img/[\w.-]+\.png)\)", (DOCS / "viewer.md").read_text())
    assert names, "docs/viewer.md shows no picture"
    for name in names:
        assert (DOCS / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
