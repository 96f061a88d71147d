import math

import pytest

from wug.graph import Judgment
from wug.statistics import (
    agreement,
    binary_change,
    jensen_shannon,
    ordinal_alpha,
    pairwise_spearman,
    sense_frequencies,
)


def test_sense_frequencies_count_uses_per_grouping_and_cluster():
    labels = {"a": 0, "b": 0, "c": 1, "d": 1, "e": 1}
    groupings = {"a": "1", "b": "2", "c": "2", "d": "2", "e": "1", "x": "1"}
    assert sense_frequencies(labels, groupings) == {"1": {0: 1, 1: 1}, "2": {0: 1, 1: 2}}


def test_jensen_shannon_distance_by_hand():
    assert jensen_shannon({0: 5}, {1: 3}) == pytest.approx(1.0)
    assert jensen_shannon({0: 2, 1: 2}, {0: 1, 1: 1}) == pytest.approx(0.0)
    # p = (1/2, 1/2), q = (1, 0): m = (3/4, 1/4)
    kl_p = 0.5 * math.log2(0.5 / 0.75) + 0.5 * math.log2(0.5 / 0.25)
    kl_q = 1.0 * math.log2(1 / 0.75)
    assert jensen_shannon({0: 1, 1: 1}, {0: 4}) == pytest.approx(math.sqrt((kl_p + kl_q) / 2))
    assert jensen_shannon({}, {0: 1}) is None


def test_binary_change_needs_a_sense_rare_in_one_grouping_and_common_in_the_other():
    assert binary_change({0: 10, 1: 2}, {0: 10, 1: 5})
    assert not binary_change({0: 10, 1: 3}, {0: 10, 1: 5})
    assert binary_change({0: 10, 1: 3}, {0: 10, 1: 5}, at_most=3)
    assert binary_change({0: 10}, {0: 4, 2: 6})


def judgments(rows):
    return [Judgment(a, b, who, score) for who, a, b, score in rows]


def test_pairwise_spearman_averages_annotator_pairs_on_shared_pairs():
    rows = judgments(
        [
            ("A", "u1", "u2", 1),
            ("A", "u1", "u3", 2),
            ("A", "u2", "u3", 4),
            ("B", "u2", "u1", 2),
            ("B", "u1", "u3", 3),
            ("B", "u2", "u3", 4),
            ("C", "u1", "u2", 4),
            ("C", "u1", "u3", 3),
            ("C", "u2", "u3", 1),
            ("C", "u3", "u4", 0),
        ]
    )
    rho, pairs = pairwise_spearman(rows)
    assert pairs == 3
    assert rho == pytest.approx((1.0 - 1.0 - 1.0) / 3)


def test_alpha_is_one_for_perfect_agreement_and_ignores_cannot_decide():
    rows = judgments(
        [
            ("A", "u1", "u2", 1),
            ("B", "u1", "u2", 1),
            ("A", "u1", "u3", 4),
            ("B", "u1", "u3", 4),
            ("A", "u2", "u3", 3),
            ("B", "u2", "u3", 0),
        ]
    )
    assert ordinal_alpha(rows) == pytest.approx(1.0)
    result = agreement(rows)
    assert result.spearman == pytest.approx(1.0) and result.annotator_pairs == 1


def test_alpha_is_undefined_with_one_annotator():
    assert ordinal_alpha(judgments([("A", "u1", "u2", 1), ("A", "u1", "u3", 2)])) is None


def test_an_annotators_repeated_judgments_of_a_pair_count_as_their_median_in_any_order():
    """An annotator who judged a pair twice (e.g. in two rounds) is one cell of the
    annotator x pair table: the median of their decided judgments, as for the edge, never
    the one that happens to come last."""
    base = [
        ("A", "u1", "u3", 1),
        ("A", "u2", "u3", 4),
        ("B", "u1", "u2", 2),
        ("B", "u1", "u3", 1),
        ("B", "u2", "u3", 4),
    ]
    once = judgments(base + [("A", "u1", "u2", 2)])
    twice = base + [("A", "u1", "u2", 1), ("A", "u2", "u1", 3)]
    for rows in (judgments(twice), judgments(twice[::-1])):
        assert pairwise_spearman(rows) == pytest.approx(pairwise_spearman(once))
        assert ordinal_alpha(rows) == pytest.approx(ordinal_alpha(once))


def test_a_median_between_two_points_of_the_scale_is_an_ordinal_value_of_its_own():
    rows = judgments(
        [
            ("A", "u1", "u2", 1),
            ("A", "u1", "u2", 2),
            ("B", "u1", "u2", 1),
            ("A", "u1", "u3", 4),
            ("B", "u1", "u3", 4),
            ("A", "u2", "u3", 3),
            ("B", "u2", "u3", 2),
        ]
    )
    alpha = ordinal_alpha(rows)
    assert alpha is not None and -1.0 <= alpha <= 1.0
