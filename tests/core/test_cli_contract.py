"""The command line's contract: help everywhere, one-line errors, no tracebacks."""

import sys
import subprocess

from gstest import run_gridscope


def _commands() -> list[str]:
    from gridscope.cli import _register_commands
    from gridscope.cli.app import app
    import typer.main

    _register_commands()
    return sorted(typer.main.get_command(app).commands)


def test_every_command_has_help():
    commands = _commands()
    assert {"record", "version"} <= set(commands)
    for name in commands:
        proc = run_gridscope(name, "--help")
        assert "Usage:" in proc.stdout, name


def test_a_command_starts_without_the_others():
    """`gridscope CMD` imports CMD's module alone (each module is named after its command)."""
    code = ("import sys; from gridscope.cli import _register_commands; _register_commands(['version']); "
            "print(sorted(m for m in sys.modules if m.startswith('gridscope.cli.') and m != 'gridscope.cli.app'))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "['gridscope.cli.version']"


def test_unknown_command_fails_without_traceback():
    proc = run_gridscope("no-such-command", check=False)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr


def test_gridscope_error_is_one_line_and_exit_2(tmp_path):
    bad_map = tmp_path / "map.json"
    bad_map.write_text("not json")
    proc = run_gridscope("record", "--metahosts", bad_map, "--", "mpirun", "true", check=False)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert lines == [f"gridscope: {bad_map}: not valid JSON: Expecting value at line 1"]


def test_python_dash_m_entry_point_runs():
    proc = subprocess.run([sys.executable, "-m", "gridscope", "version"], capture_output=True,
                          text=True, check=True)
    assert proc.stdout.startswith("gridscope ")
