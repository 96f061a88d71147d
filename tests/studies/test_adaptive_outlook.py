"""What adaptive settings imply (``adaptive.ratings_needed``, ``adaptive.outlook``) is what
the growth rule (``adaptive.grow``) does: a sample's ratings stop where the outlook says."""

from __future__ import annotations

import random

import pytest

from studies.adaptive import (
    SD_FLOOR,
    SampleState,
    grow,
    interval_width,
    outlook,
    ratings_needed,
    sd_reaching_target,
)


def _grown(scores_for, *, minimum: int, maximum: int, target: float) -> int:
    """Ratings one sample ends with when ``grow`` runs alone on it, round after round (every
    wanted rating in before the next round, as on the site); ``scores_for(n)`` are the
    scores of its first n ratings."""
    n = minimum
    while True:
        state = SampleState("s", 1, tuple(scores_for(n)), n, 0)
        picks = grow(
            [state],
            maximum=maximum,
            target_width=target,
            budget_left=10_000,
            batch_groups=1,
            sd_floor=SD_FLOOR,
        )
        if not picks:
            return n
        n += 1


@pytest.mark.parametrize(
    ("minimum", "maximum", "target"),
    [(5, 9, 1.0), (3, 12, 1.0), (5, 9, 0.5), (2, 6, 2.0), (5, 5, 1.0), (1, 20, 0.8)],
)
def test_a_sample_whose_raters_all_agree_gets_what_the_outlook_says(minimum, maximum, target):
    grown = _grown(lambda n: [3] * n, minimum=minimum, maximum=maximum, target=target)
    assert grown == ratings_needed(
        0.0, minimum=minimum, maximum=maximum, target_width=target, sd_floor=SD_FLOOR
    )
    found = outlook(
        minimum=minimum, maximum=maximum, target_width=target, n_samples=10, budget=10 * maximum
    )
    assert found.agreed == grown


def test_with_the_defaults_even_full_agreement_needs_seven_ratings():
    # the study's defaults: 5 to 9 ratings, target width 1.0
    assert _grown(lambda n: [4] * n, minimum=5, maximum=9, target=1.0) == 7
    found = outlook(minimum=5, maximum=9, target_width=1.0, n_samples=100, budget=900)
    assert found.agreed == 7
    assert "Even a sample whose raters all agree gets 7" in found.sentences()[0]
    assert "at least 700" in found.sentences()[2] and "at most 900" in found.sentences()[2]


def test_growth_picks_a_sample_exactly_while_it_has_fewer_than_the_ratings_it_needs():
    rng = random.Random(7)
    for _ in range(400):
        minimum, maximum = rng.randint(1, 6), rng.randint(1, 12)
        target = rng.choice([0.5, 0.8, 1.0, 1.5, 2.5])
        n = rng.randint(max(1, minimum), max(minimum, maximum))
        scores = [rng.randint(1, 5) for _ in range(n)]
        mean = sum(scores) / n
        sd = (sum((s - mean) ** 2 for s in scores) / (n - 1)) ** 0.5 if n > 1 else 0.0
        picked = grow(
            [SampleState("s", 1, tuple(scores), n, 0)],
            maximum=maximum,
            target_width=target,
            budget_left=100,
            batch_groups=1,
            sd_floor=SD_FLOOR,
        )
        needed = ratings_needed(
            sd, minimum=minimum, maximum=maximum, target_width=target, sd_floor=SD_FLOOR
        )
        assert bool(picked) == (n < needed), (scores, minimum, maximum, target)


def test_the_sd_limit_is_where_the_maximum_just_reaches_the_target():
    limit = sd_reaching_target(9, 1.0)
    assert interval_width([0.0] * 9, sd_floor=limit) == pytest.approx(1.0)
    assert ratings_needed(limit * 0.999, minimum=5, maximum=9, target_width=1.0) == 9
    assert ratings_needed(limit * 0.999, minimum=5, maximum=8, target_width=1.0) == 8  # the cap


def test_the_expected_total_follows_known_sds_within_the_budget():
    sds = [0.0, 0.55, 1.2, 2.0]
    needs = [
        ratings_needed(sd, minimum=5, maximum=9, target_width=1.0, sd_floor=SD_FLOOR) for sd in sds
    ]
    found = outlook(minimum=5, maximum=9, target_width=1.0, n_samples=4, budget=36, sds=sds)
    assert found.expected_per_sample == pytest.approx(sum(needs) / 4)
    assert found.expected_total == sum(needs)
    tight = outlook(minimum=5, maximum=9, target_width=1.0, n_samples=4, budget=25, sds=sds)
    assert tight.expected_total == 25
    assert "budget runs out" in tight.sentences()[-1]


def test_a_target_no_interval_can_reach_is_said_plainly():
    found = outlook(minimum=5, maximum=9, target_width=0.5, n_samples=10, budget=90)
    assert found.agreed == 9
    assert "no interval of 9 ratings is as narrow as the target 0.5" in found.sentences()[0]
