"""The variance-optimal growth rule (``studies.adaptive``, pure): the SD shrinkage towards the
pooled SD, the variance each next rating removes, and the allocation it leads to (n ~ SD,
where widest-interval-first gives n ~ SD^2)."""

from __future__ import annotations

import math

import pytest

from studies.adaptive import (
    VARIANCE,
    WIDEST,
    SampleState,
    grow,
    pooled_sd,
    shrunk_sd,
    variance_gain,
)


def test_pooled_sd_weighs_each_sample_by_its_degrees_of_freedom():
    # squared deviations 2 (df 1) and 0 (df 2); a single rating adds nothing
    assert pooled_sd([[1, 3], [2, 2, 2], [5]]) == pytest.approx(math.sqrt(2 / 3))
    assert pooled_sd([[4], []]) == 0.0


def test_shrinkage_moves_a_few_ratings_towards_the_pooled_sd():
    # ((n-1) SD^2 + k pooled^2) / (n-1+k): three equal ratings, pooled 1, k 4 -> 4/6
    assert shrunk_sd([3, 3, 3], 1.0, prior_df=4) == pytest.approx(math.sqrt(4 / 6))
    assert shrunk_sd([1, 5], 0.0, prior_df=0) == pytest.approx(math.sqrt(8))
    # many ratings: the sample's own SD dominates
    many = [1, 5] * 50
    own = math.sqrt(sum((x - 3) ** 2 for x in many) / 99)
    assert shrunk_sd(many, 0.5) == pytest.approx(own, rel=0.03)


def test_variance_gain_is_what_one_more_rating_removes_from_the_mean_variance():
    s2 = shrunk_sd([1, 3, 5], 1.0) ** 2
    assert variance_gain([1, 3, 5], 1.0) == pytest.approx(s2 / 3 - s2 / 4)


def _grown(rule: str, budget: int) -> dict[str, float]:
    """Grow 10 calm (ratings alternate 2, 4: SD about 1) and 10 wild (1, 5: SD about 2)
    samples round by round; the mean ratings per sample of each kind at the end."""
    cycles = {"calm": (2, 4), "wild": (1, 5)}
    counts = {(kind, i): 3 for kind in cycles for i in range(10)}
    spent = 0
    while spent < budget:
        states = [
            SampleState(key, key, tuple(cycles[key[0]][j % 2] for j in range(n)), n, 0)
            for key, n in counts.items()
        ]
        picks = grow(
            states, maximum=60, target_width=0.0, budget_left=budget - spent, batch_groups=1,
            rule=rule,
        )  # fmt: skip
        assert picks
        for key in picks:
            counts[key] += 1
        spent += len(picks)
    return {kind: sum(n for k, n in counts.items() if k[0] == kind) / 10 for kind in cycles}


def test_variance_rule_allots_about_n_proportional_to_sd_widest_about_sd_squared():
    variance, widest = _grown(VARIANCE, 600), _grown(WIDEST, 600)
    # SD ratio wild/calm is about 2: n ~ SD gives about 2 (a little less: the shrinkage and
    # the half-of-the-eligible rounds), n ~ SD^2 about 4 (3.1 here, 16 against 50)
    assert 1.5 < variance["wild"] / variance["calm"] < 2.2
    assert widest["wild"] / widest["calm"] > 2.8


def test_an_unknown_rule_is_refused_by_name():
    states = [SampleState("a", 1, (1, 5, 3), 3, 0)]
    with pytest.raises(ValueError, match="'nearest'"):
        grow(states, maximum=9, target_width=0, budget_left=5, batch_groups=1, rule="nearest")
