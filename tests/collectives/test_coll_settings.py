"""The collectives' settings: declared once in collectives/settings.toml; the generated C
table and docs table are current, `gridscope collectives --settings` lists the declaration,
and a bad declaration is one clear line."""

from __future__ import annotations

import importlib.util
import shutil
import tomllib

import pytest

from gstest import REPO, run_gridscope

DECLARATION = REPO / "collectives" / "settings.toml"
GENERATOR = REPO / "collectives" / "tools" / "gen_settings.py"


def _generator():
    spec = importlib.util.spec_from_file_location("gen_settings", GENERATOR)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _declared() -> list[dict]:
    return tomllib.loads(DECLARATION.read_text())["setting"]


def test_generated_files_are_current():
    gen = _generator()
    assert gen.main(["--check"]) == 0, "run collectives/tools/gen_settings.py"
    # every variable the library reads is in the docs table
    doc = (REPO / "docs" / "collectives.md").read_text()
    for s in _declared():
        assert f"| `{s['name']}` |" in doc


def test_check_names_a_stale_file(tmp_path, monkeypatch, capsys):
    gen = _generator()
    for name in ("IDS", "TABLE", "DOC"):
        copy = tmp_path / getattr(gen, name).name
        shutil.copy(getattr(gen, name), copy)
        monkeypatch.setattr(gen, name, copy)
    monkeypatch.setattr(gen, "ROOT", tmp_path)
    assert gen.main(["--check"]) == 0
    doc = tmp_path / "collectives.md"
    doc.write_text(doc.read_text().replace("| `GRIDSCOPE_COLL_SEGSIZE` | integer |",
                                           "| `GRIDSCOPE_COLL_SEGSIZE` | number |"))
    capsys.readouterr()
    assert gen.main(["--check"]) == 1
    assert capsys.readouterr().err.strip() == \
        "collectives.md: stale; run collectives/tools/gen_settings.py"
    assert gen.main([]) == 0 and gen.main(["--check"]) == 0  # rewriting makes it current


def _native_with(tmp_path, text: str):
    share = tmp_path / "native" / "share" / "collectives"
    share.mkdir(parents=True)
    (share / "settings.toml").write_text(text)
    return {"GRIDSCOPE_NATIVE_DIR": str(tmp_path / "native")}


def test_cli_lists_every_setting(tmp_path):
    env = _native_with(tmp_path, DECLARATION.read_text())
    out = run_gridscope("collectives", "--settings", env=env).stdout
    heads = [line for line in out.splitlines() if line.startswith("GRIDSCOPE_COLL")]
    want = [s["name"] for s in _declared()]
    assert [h.split()[0] for h in heads] == want
    assert "GRIDSCOPE_COLL_LAN_WINDOW  (integer, default: 2)" in heads
    assert "GRIDSCOPE_COLL_SEGSIZE  (integer, default: unset)" in heads
    flat = " ".join(out.split())  # the listing wraps long lines
    assert "allowed: one of vanilla, topo, auto; a bad value: warning, using the default (vanilla)" in flat
    assert "binomial; a bad value: warning, using vanilla" in flat
    md = run_gridscope("collectives", "--settings", "--markdown", env=env).stdout
    assert md in (REPO / "docs" / "collectives.md").read_text()


def test_cli_without_option_shows_help(tmp_path):
    out = run_gridscope("collectives").stdout
    assert "--settings" in out and "Usage: gridscope collectives" in out


@pytest.mark.parametrize("text, problem", [
    ('[[setting]]\nname = "GRIDSCOPE_COLL_X"\ntype = "float"\ndefault = ""\nmeaning = "m"\n',
     "setting #1: GRIDSCOPE_COLL_X: type 'float' is not one of choice, algorithm, integer, path"),
    ('[[setting]]\nname = "GRIDSCOPE_COLL_X"\ntype = "integer"\nunit = "bytes"\nmin = 1\n'
     'max = 8\ndefault = 9\nmeaning = "m"\n', "setting #1: GRIDSCOPE_COLL_X: default 9 is not in 1..8"),
    ('[[setting]]\nname = "OTHER"\ntype = "path"\ndefault = ""\nmeaning = "m"\n',
     "setting #1: name 'OTHER' does not start with GRIDSCOPE_COLL"),
    ("[[setting]\n", "not TOML"),
])
def test_bad_declaration_is_one_line(tmp_path, text, problem):
    env = _native_with(tmp_path, text)
    proc = run_gridscope("collectives", "--settings", env=env, check=False)
    path = tmp_path / "native" / "share" / "collectives" / "settings.toml"
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"gridscope: {path}: {problem}")
    assert len(proc.stderr.strip().splitlines()) == 1


def test_missing_declaration(tmp_path):
    proc = run_gridscope("collectives", "--settings", env={"GRIDSCOPE_NATIVE_DIR": str(tmp_path)},
                         check=False)
    assert proc.returncode == 2 and "settings declaration is missing" in proc.stderr
