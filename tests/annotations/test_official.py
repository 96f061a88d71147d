"""annotations/official.py: the one home of the official per-sample rule (no database)."""

import itertools

import numpy as np
import pytest

from annotations.official import accepted_band, is_within_sd, label_mean, spearman
from predictions.ml.stacking import label_bounds

LABEL_SETS = [
    list(c) for n in (1, 2, 3, 5) for c in itertools.combinations_with_replacement(range(1, 6), n)
]


def test_the_band_accepts_what_the_rule_accepts_up_to_rounding_at_its_edges():
    # At the edges the rule's own float arithmetic decides (1.2 - 0.2 is exactly 1.0, so the
    # rule refuses 0.2 for [1, 1, 1, 1, 2] while 1.2 - 1.0 < 0.2): hence is_within_sd for
    # every verdict, the band only for training objectives.
    for labels in LABEL_SETS:
        lo, hi = accepted_band(labels)
        for p in np.linspace(0.0, 6.0, 241).tolist():
            if min(abs(p - lo), abs(p - hi)) > 1e-9:
                assert (lo < p < hi) is is_within_sd(p, labels), (labels, p)


def test_the_band_is_centred_on_the_official_mean_with_half_width_at_least_one():
    for labels in LABEL_SETS:
        lo, hi = accepted_band(labels)
        assert (lo + hi) / 2 == pytest.approx(label_mean(labels), abs=1e-12)
        assert hi - lo > 2.0 - 1e-12


def test_training_bounds_are_the_official_band_of_each_sample():
    samples = [{"choices": labels} for labels in LABEL_SETS[:20]]
    lo, hi = label_bounds(samples)
    assert list(zip(lo, hi)) == [accepted_band(s["choices"]) for s in samples]


def test_spearman_is_none_where_undefined():
    assert spearman([1.0], [2.0]) is None
    assert spearman([3.0, 3.0, 3.0], [1.0, 2.0, 3.0]) is None  # a constant baseline
    assert spearman([1.0, 2.0, 3.0], [1.0, 3.0, 5.0]) == 1.0
