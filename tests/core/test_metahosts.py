"""Metahost map files: parsing, validation errors, resolution order."""

import json

import pytest

from gridscope.errors import GridscopeError
from gridscope.metahosts import load_map, parse_map


def test_rank_ranges_and_globs_resolve_in_file_order():
    mapping = parse_map({"jsc": ["rank:0-3"], "brs": ["brs-*", "rank:9"], "rest": ["*"]})
    assert mapping.names == ["jsc", "brs", "rest"]
    assert [mapping.resolve(r, "node7") for r in range(5)] == ["jsc"] * 4 + ["rest"]
    assert mapping.resolve(5, "brs-12") == "brs"
    assert mapping.resolve(9, "other") == "brs"
    # rank 2 on a brs host: the first entry in file order wins
    assert mapping.resolve(2, "brs-1") == "jsc"


def test_a_single_string_is_one_selector():
    mapping = parse_map({"epyc": "epyc2", "desktop": ["arnaud-Desktop"]})
    assert mapping.resolve_all(["epyc2", "arnaud-Desktop", "epyc2"]) == ["epyc", "desktop", "epyc"]


def test_resolve_all_names_the_rank_nothing_matches():
    mapping = parse_map({"A": ["rank:0-1"]}, source="map.json")
    with pytest.raises(GridscopeError, match=r"map.json: no metahost matches rank 2 on host 'h'"):
        mapping.resolve_all(["h", "h", "h"])


@pytest.mark.parametrize(
    "data, problem",
    [
        ([], "non-empty JSON object"),
        ({}, "non-empty JSON object"),
        ({"A": []}, "needs a list of selectors"),
        ({"A": [3]}, "is not a non-empty string"),
        ({"A": ["rank:4-2"]}, "empty rank range"),
        ({"A": ["rank:x"]}, "bad rank selector"),
        ({"a/b": ["*"]}, "bad metahost name"),
    ],
)
def test_bad_maps_give_one_clear_error(data, problem):
    with pytest.raises(GridscopeError, match=problem):
        parse_map(data, source="m.json")


def test_load_map_reports_unreadable_and_invalid_files(tmp_path):
    missing = tmp_path / "none.json"
    with pytest.raises(GridscopeError, match="cannot read metahost map"):
        load_map(missing)
    broken = tmp_path / "broken.json"
    broken.write_text('{"A": ["rank:0-1"')
    with pytest.raises(GridscopeError, match=r"broken.json: not valid JSON"):
        load_map(broken)
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"A": ["rank:0-1"], "B": ["rank:2-3"]}))
    assert load_map(good).resolve(3, "x") == "B"
