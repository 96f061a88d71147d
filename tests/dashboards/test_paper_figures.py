"""dashboards.paper_figures: histogram panels on one scale, each bar and panel described."""

from __future__ import annotations

import pytest

from dashboards.paper_figures import HEIGHT, PAD, WIDTH, histogram_figure


def test_bars_are_shares_of_each_group_on_one_scale():
    figure = histogram_figure(
        "f",
        "caption",
        "value",
        [("a", [1, 3], 0.75), ("b", [2, 2], None)],
        [0.0, 0.5, 1.0],
        "pairs",
    )
    a, b = figure.panels
    # the tallest share (3 of 4 in panel a) fills the panel's drawable height
    full = HEIGHT - 2 * PAD
    assert a.bars[1].height == pytest.approx(full)
    assert a.bars[0].height == pytest.approx(full / 3, abs=0.01)
    assert b.bars[0].height == pytest.approx(full * (0.5 / 0.75), abs=0.01)
    assert a.bars[1].y == pytest.approx(PAD, abs=0.01)
    # bins sit side by side across the width; the median marker at 0.75 of the axis
    assert a.bars[0].x == PAD and a.bars[1].x == pytest.approx(PAD + (WIDTH - 2 * PAD) / 2)
    assert a.marker_x == pytest.approx(PAD + 0.75 * (WIDTH - 2 * PAD))
    assert b.marker_x is None
    assert a.bars[1].title == "0.5-1: 3 pairs (75%)"
    assert a.description == "a: 4 pairs, median 0.75; most in 0.5-1 (75%)"


def test_an_empty_group_draws_no_bars_and_says_so():
    figure = histogram_figure("f", "c", "v", [("empty", [0, 0], None)], [0, 1, 2], "samples")
    (panel,) = figure.panels
    assert panel.n == 0 and all(bar.height == 0 for bar in panel.bars)
    assert panel.description == "empty: 0 samples"
