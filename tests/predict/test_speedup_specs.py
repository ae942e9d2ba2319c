"""--speedup REGION[@RANKS]=FACTOR: what predict accepts and hands the replayer."""

from __future__ import annotations

import pytest

from gridscope.errors import GridscopeError
from gridscope.predict.driver import parse_speedups, speedup_region


def test_region_and_rank_scoped_specs():
    assert parse_speedups(["solve=0.8", "solve@5=0.5", "work@4-7,9=0.25"]) == {
        "solve": 0.8, "solve@5": 0.5, "work@4-7,9": 0.25}
    assert [speedup_region(k) for k in ("solve", "solve@5", "a@b@1-2")] == ["solve", "solve", "a@b"]


@pytest.mark.parametrize("spec", ["solve", "solve=0", "solve=-1", "=0.5", "solve@=0.5", "solve@x=0.5",
                                  "solve@4-=0.5", "@5=0.5", "solve@5,=0.5"])
def test_bad_specs_are_one_line(spec):
    with pytest.raises(GridscopeError) as err:
        parse_speedups([spec])
    assert "\n" not in str(err.value) and "REGION@RANKS=FACTOR" in str(err.value)
