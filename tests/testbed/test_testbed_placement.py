"""Ranks -> simulated hosts: even shares, --layout, block and round-robin, node filling."""

from __future__ import annotations

import pytest

from gridscope.testbed.placement import PlacementError, hosts_for_ranks, shares
from gridscope.testbed.platform import load_platform, parse_platform

THREE = """
[metahost.a]
nodes = 2
cores = 2
bandwidth = "1Gbps"
latency = "0.1ms"
[metahost.b]
nodes = 3
bandwidth = "1Gbps"
latency = "0.1ms"
[metahost.c]
nodes = 1
bandwidth = "1Gbps"
latency = "0.1ms"
[wan]
bandwidth = "100Mbps"
latency = "5ms"
"""


@pytest.fixture
def three():
    return parse_platform(THREE, "three.toml", "three")


def test_even_shares_give_the_remainder_to_the_first(three):
    assert shares(three, 8, None) == [3, 3, 2]
    assert shares(three, None, None) == [4, 3, 1]  # every core once


def test_block_placement_fills_nodes_core_by_core(three):
    assert hosts_for_ranks(three, 8, None) == [
        "a-0", "a-0", "a-1", "b-0", "b-1", "b-2", "c-0", "c-0"]


def test_layout_and_oversubscription(three):
    hosts = hosts_for_ranks(three, None, "6,0,2")
    assert hosts == ["a-0", "a-0", "a-0", "a-1", "a-1", "a-1", "c-0", "c-0"]


def test_round_robin_alternates_metahosts(three):
    assert hosts_for_ranks(three, 5, "2,2,1", "round-robin") == [
        "a-0", "b-0", "c-0", "a-0", "b-1"]


def test_viola_seed_layout():
    hosts = hosts_for_ranks(load_platform("viola"), 24, "16,8")
    assert hosts[:16] == [f"FH-BRS-{i // 4}" for i in range(16)]
    assert hosts[16:] == [f"FZJ-{i}" for i in range(8)]


@pytest.mark.parametrize("np_,layout,message", [
    (8, "4,4", "gives 2 counts for 3 metahosts"),
    (9, "4,4,0", "places 8 ranks but -np is 9"),
    (None, "4,x,1", "not a comma-separated list"),
    (None, "0,0,0", "at least one rank"),
    (0, None, "-np must be at least 1"),
])
def test_bad_layouts(three, np_, layout, message):
    with pytest.raises(PlacementError, match=message):
        hosts_for_ranks(three, np_, layout)
