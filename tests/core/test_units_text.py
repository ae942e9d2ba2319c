"""gridscope.units: the one convention of every text (µs, ms, s; B, KiB, MiB; never "-0")."""

from __future__ import annotations

import pytest

from gridscope.units import bytes_text, rate_text, seconds_text, share_text


@pytest.mark.parametrize("value,text", [(2.5, "2.50 s"), (12.34, "12.3 s"), (0.0123, "12.3 ms"), (4e-5, "40.0 µs"),
                                        (0, "0 s"), (-1e-12, "0 s"), (None, "–"), (-0.25, "-250 ms")])
def test_seconds(value, text):
    assert seconds_text(value) == text


@pytest.mark.parametrize("value,text", [(512, "512 B"), (4096, "4.00 KiB"), (3.91 * 2**20, "3.91 MiB"),
                                        (None, "–")])
def test_bytes_and_rates(value, text):
    assert bytes_text(value) == text
    assert rate_text(value) == ("–" if value is None else text + "/s")


@pytest.mark.parametrize("value,text", [(0.123, "12.3 %"), (-1e-9, "0.0 %"), (None, "–"), (1.0, "100.0 %")])
def test_shares(value, text):
    assert share_text(value) == text
