"""Annotator quality maths: per-rater medians of seconds per item."""

from __future__ import annotations

import numpy as np
import pytest

from dashboards.annotators import _medians


@pytest.mark.parametrize("n_raters", [50, 70_000])  # 16-bit rater codes and wider ones
def test_medians_per_rater_equal_numpys_median(n_raters):
    rng = np.random.default_rng(n_raters)
    rater = rng.integers(0, n_raters, 200_000)
    seconds = np.round(rng.gamma(2, 5, 200_000), 3)
    seconds[::11] = np.nan  # unknown start times
    got = _medians(rater, seconds, n_raters + 1)  # the last rater rated nothing
    for r in rng.choice(n_raters, 40, replace=False).tolist() + [n_raters]:
        mine = seconds[(rater == r) & ~np.isnan(seconds)]
        expected = float(np.median(mine)) if len(mine) else np.nan
        assert got[r] == pytest.approx(expected, nan_ok=True)
