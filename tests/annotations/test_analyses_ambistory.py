"""AmbiStory's descriptive analyses (annotations.analyses_ambistory) on the shipped train and
dev splits (the test split is not published with ratings, so the paper's whole-dataset
figures are approached, not matched), against independent computations."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import norm, rankdata

from annotations.analyses_ambistory import (
    PAPER_TABLE2,
    PAPER_TOP_HOMONYMS,
    StorySample,
    dataset_counts,
    samples_from_json,
    sd_comparison,
    section_lengths,
)

DATA = Path(__file__).resolve().parents[2] / "data" / "ambistory"


@pytest.fixture(scope="module")
def samples() -> list[StorySample]:
    out: list[StorySample] = []
    for name in ("train", "dev"):
        out += samples_from_json(json.loads((DATA / f"{name}.json").read_text()).values())
    return out


def _sample(precontext, sentence, ending, sd=1.0, meaning="m1", homonym="bank"):
    return StorySample(homonym, meaning, precontext, sentence, ending, sd)


def test_section_lengths_count_each_distinct_text_once():
    rows = [
        _sample("a b c", "d e", "", meaning="m1"),
        _sample("a b c", "d e", "", meaning="m2"),
        _sample("a b c", "d e", "f", meaning="m1"),
        _sample("a b c", "d e", "g h i", meaning="m1"),
        _sample("x", "y z w", "", homonym="bat"),
    ]
    found = section_lengths(rows)
    assert found["precontext"] == pytest.approx((3 + 1) / 2)
    assert found["sentence"] == pytest.approx((2 + 3) / 2)
    assert found["ending"] == pytest.approx((1 + 3) / 2)
    assert found["story"] == pytest.approx((5 + 6 + 8 + 4) / 4)


def test_table_2_on_train_and_dev_is_within_a_fifth_of_a_word_of_the_paper(samples):
    found = section_lengths(samples)
    for section, paper in PAPER_TABLE2.items():
        assert abs(found[section] - paper) < 0.2, (section, found[section], paper)


def test_section_4_1_counts(samples):
    counts = dataset_counts(samples)
    assert counts["samples"] == 2280 + 588  # the paper's train and dev sizes
    assert counts["setups"] * 6 == counts["samples"]  # six samples per setup
    assert counts["homonym_forms"] < 361 and counts["sense_pairs"] < 411
    top = dict(counts["top_homonyms"][:2])
    assert top == {"change": PAPER_TOP_HOMONYMS["change"], "lousy": PAPER_TOP_HOMONYMS["lousy"]}


def test_the_rank_sum_test_matches_an_independent_computation(samples):
    result = sd_comparison(samples)
    open_ = np.array([s.stdev for s in samples if not s.ending])
    ended = np.array([s.stdev for s in samples if s.ending])
    ranks = rankdata(np.concatenate([open_, ended]))
    n1, n2 = len(open_), len(ended)
    expected = n1 * (n1 + n2 + 1) / 2
    z = (ranks[:n1].sum() - expected) / math.sqrt(n1 * n2 * (n1 + n2 + 1) / 12)
    assert (result.n_open, result.n_ended) == (n1, n2) == (956, 1912)
    assert result.statistic == pytest.approx(z)
    assert result.p == pytest.approx(2 * norm.sf(abs(z)))
    # where the paper reports no significant difference, train+dev give p = 0.018
    assert round(result.p, 3) == 0.018
    assert sum(result.histogram_open) == n1 and sum(result.histogram_ended) == n2


def test_the_comparison_and_the_import_name_what_is_missing():
    with pytest.raises(ValueError, match="open-ended and ended"):
        sd_comparison([_sample("a", "b", ""), _sample("a", "b", "c")])
    with pytest.raises(ValueError, match="sample 7"):
        samples_from_json([{"sample_id": "7", "homonym": "x"}])
