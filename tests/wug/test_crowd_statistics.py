""" "Cannot decide" (0) of a use pair is a valid answer but no point on the scale: the
dashboards' statistics (means, SDs, agreement) and adaptive allocation leave it out by the
one rule (``annotations.models.decided_ratings`` / ``annotations.kinds.is_decided``)."""

from __future__ import annotations

import math

import pytest

from annotations.kinds import is_decided
from annotations.models import Rating, Sample
from dashboards.annotators import rater_rows
from dashboards.figures import agreement_for
from dashboards.forms import sample_filter
from dashboards.items import rows_for
from dashboards.selectors import labels_by_sample, rating_table, sample_counts, sample_stats
from studies import services
from studies.growth import _growth_states
from studies.selectors import batch_items
from wug.crowd import crowd_study_create

from .crowd_helpers import arrive, small_word

pytestmark = pytest.mark.django_db


def _answer_all(participant, score: int) -> None:
    """Samples get ``score``, gold pairs their expected answer."""
    checks = {a.position: a.question for a in participant.attention_answers.all()}
    for item in batch_items(participant):
        value = checks[item.position].expected if item.position in checks else score
        services.item_save(
            participant=participant, position=item.position, answer=services.Answer(score=value)
        )


@pytest.fixture
def judged():
    """Two participants judge the same three pairs: one 'cannot decide' (0), one 4 and 2."""
    crowd = crowd_study_create(
        words=[small_word()], title="Planes", slug="planes", pairs_per_round=3,
        judgments_per_pair=3, pairs_per_participant=3, gold_pairs_total=1,
        gold_per_participant=1,
    )  # fmt: skip
    study = services.study_open(study=crowd.study)
    _answer_all(arrive(study, 1), 0)
    _answer_all(arrive(study, 2), 4)
    _answer_all(arrive(study, 3), 2)
    return study


def test_the_rule_knows_cannot_decide_only_for_use_pairs():
    assert not is_decided("use_pair", 0) and is_decided("use_pair", 1)
    assert is_decided("relatedness", 0) and is_decided(None, 3)


def test_sample_means_and_sds_leave_cannot_decide_out(judged):
    ratings = Rating.objects.filter(sample__studies=judged)
    assert set(ratings.values_list("score", flat=True)) == {0, 2, 4}
    _, counts = sample_counts(ratings)
    assert counts[:, 0].sum() == 0 and counts.sum() == 6
    stats = sample_stats(Sample.objects.filter(studies=judged), ratings=ratings)
    rated = stats.n > 0
    assert rated.sum() == 3 and (stats.mean[rated] == 3.0).all()
    assert all(math.isclose(sd, math.sqrt(2)) for sd in stats.sd[rated])
    assert all(sorted(v) == [2, 4] for v in labels_by_sample(ratings).values())
    samples = list(Sample.objects.filter(studies=judged, ratings__isnull=False).distinct())
    rows, _ = rows_for(samples, ratings=ratings)
    for row in rows:
        assert row.sample.n_ratings == 3  # shown and counted
        assert row.sample.mean == 3.0 and math.isclose(row.sample.sd, math.sqrt(2))
        assert sorted(row.labels) == [2, 4]


def test_agreement_figures_leave_cannot_decide_out(judged):
    ratings = Rating.objects.filter(sample__studies=judged)
    table = rating_table(ratings, Sample.objects.filter(studies=judged))
    assert len(table) == 6 and 0.0 not in set(table.score.tolist())
    found = agreement_for(sample_filter({"study": str(judged.pk)}))
    assert found["n_ratings"] == 6


def test_adaptive_intervals_leave_cannot_decide_out(judged):
    states = [s for s in _growth_states(judged) if s.scores]
    assert len(states) == 3
    assert all(sorted(s.scores) == [2, 4] for s in states)


def test_the_annotators_table_counts_cannot_decide_but_compares_only_decided_scores(judged):
    ratings = Rating.objects.filter(sample__studies=judged, sample__use_pair__isnull=False)
    rows = rater_rows(ratings)
    by_mean = {}
    for row in rows[0 : len(rows)]:
        scores = set(ratings.filter(rater_id=row.rater_id).values_list("score", flat=True))
        by_mean[scores.pop()] = row
    assert all(row.items == 3 for row in by_mean.values())  # 0s are items too
    assert by_mean[0].compared == 0 and by_mean[0].leniency is None
    # 4 against the others' decided mean (2), not against (0 + 2) / 2
    assert by_mean[4].leniency == 2.0 and by_mean[2].leniency == -2.0


def test_the_annotators_table_lists_a_rater_who_never_decides():
    crowd = crowd_study_create(
        words=[small_word()], title="Planes", slug="planes", pairs_per_round=3,
        judgments_per_pair=1, pairs_per_participant=3, gold_pairs_total=1,
        gold_per_participant=1,
    )  # fmt: skip
    study = services.study_open(study=crowd.study)
    participant = arrive(study, 1)
    _answer_all(participant, 0)
    rows = rater_rows(Rating.objects.filter(sample__use_pair__isnull=False))
    (row,) = rows[0:1]
    assert row.rater_id == participant.rater_id and row.items == 3 and row.compared == 0
