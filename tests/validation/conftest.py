"""The validation and fault tests print the fuzz seed they ran with (faultkit.SEED), also
under `pytest -q`; every failure message repeats it."""

from faultkit import SEED


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line(f"gridscope fuzz seed: {SEED} (replay: GRIDSCOPE_FUZZ_SEED={SEED} pytest tests/validation)")
