"""The attention-check exclusion threshold (``Study.attention_min_correct``): the pure rule
(``exclusions.below_min_correct``), its defaults per task kind, the exclusion it triggers
through the study's one exclusion service, and the study form and page."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotations.models import RaterExclusion, Rating, TaskKind
from studies import services
from studies.exclusions import below_min_correct
from studies.models import Slot
from studies.selectors import batch_items

from .helpers import open_study, pid, qualify
from .kinds_helpers import open_kind_study, rawc_samples


@pytest.mark.parametrize(
    ("wrong", "checks", "least", "below"),
    [
        (1, 1, 100, True),  # today's rule: one wrong answer excludes
        (1, 2, 100, True),
        (0, 2, 100, False),
        (1, 2, 50, False),  # RAW-C: 1 of 2 right is 50%, not below it
        (2, 2, 50, True),
        (1, 3, 50, False),
        (2, 3, 50, True),  # 1 of 3 right is 33%
        (2, 4, 50, False),
        (3, 4, 50, True),
        (5, 5, 0, False),  # 0: nobody is excluded
        (0, 0, 100, False),  # no checks: nothing to judge
        (1, 3, 67, True),  # 2 of 3 is 66.7%: below 67
        (1, 3, 66, False),
    ],
)
def test_below_min_correct(wrong, checks, least, below):
    assert below_min_correct(wrong=wrong, checks=checks, min_correct=least) is below


def _answer_all(participant, *, wrong_checks: int) -> list[bool]:
    """Answer the batch in order: samples 2, the first ``wrong_checks`` checks wrongly, the
    others as expected; returns whether the participant was excluded after each check."""
    checks = {a.position: a.question for a in participant.attention_answers.all()}
    excluded = []
    for item in batch_items(participant):
        score = 2
        if item.position in checks:
            question = checks[item.position]
            wrong = len(excluded) < wrong_checks
            score = (question.expected + 2) % 5 if wrong else question.expected
        services.item_save(
            participant=participant, position=item.position, answer=services.Answer(score=score)
        )
        if item.position in checks:
            excluded.append(RaterExclusion.objects.filter(rater=participant.rater).exists())
    return excluded


@pytest.mark.django_db
def test_a_relatedness_participant_with_half_the_catch_trials_right_counts():
    study = open_kind_study(TaskKind.RELATEDNESS, rawc_samples())
    participant = services.participant_arrive(study=study, pid=pid(1))
    qualify(participant)
    assert _answer_all(participant, wrong_checks=1) == [False, False]
    assert Rating.objects.valid().filter(rater=participant.rater).count() == 4
    assert not Slot.objects.filter(study=study, status="void").exists()


@pytest.mark.django_db
def test_both_catch_trials_wrong_excludes_and_reopens_the_places():
    study = open_kind_study(TaskKind.RELATEDNESS, rawc_samples())
    participant = services.participant_arrive(study=study, pid=pid(1))
    qualify(participant)
    assert _answer_all(participant, wrong_checks=2) == [False, True]
    assert Rating.objects.valid().filter(rater=participant.rater).count() == 0
    assert Slot.objects.filter(study=study, status="void").count() == 4  # replaced
    assert Slot.objects.filter(study=study, number=3).count() == 4


@pytest.mark.django_db
def test_a_plausibility_study_keeps_excluding_on_the_first_wrong_check():
    study = open_study(4, per_participant=2, ratings=1, checks=2)
    assert study.attention_min_correct == 100
    participant = services.participant_arrive(study=study, pid=pid(1))
    qualify(participant)
    assert _answer_all(participant, wrong_checks=1) == [True, True]
    assert RaterExclusion.objects.filter(rater=participant.rater).count() == 1  # not twice


@pytest.mark.django_db
def test_a_threshold_set_by_the_researcher_applies():
    study = open_study(4, per_participant=2, ratings=1, checks=2, attention_min_correct=50)
    participant = services.participant_arrive(study=study, pid=pid(1))
    qualify(participant)
    assert _answer_all(participant, wrong_checks=1) == [False, False]


def _form_data(kind, split, **extra) -> dict:
    return {
        "title": "Pairs", "slug": "pairs", "task_kind": kind, "split": split.pk,
        "endings": "all", "ratings_per_sample": 2, "samples_per_participant": 2,
        "time_limit_minutes": 30, "completion_code": "C", "screenout_code": "S",
        "guidelines": "g", **extra,
    }  # fmt: skip


@pytest.mark.django_db
@pytest.mark.parametrize(("given", "kept"), [("", 50), ("75", 75)])
def test_the_study_form_takes_the_threshold_or_the_kinds_default(researcher, given, kept):
    from studies.forms import StudyForm

    split = rawc_samples()[0].split
    form = StudyForm(_form_data(TaskKind.RELATEDNESS, split, attention_min_correct=given))
    assert form.is_valid(), form.errors
    study = services.study_create(samples=form.samples(), by=researcher, **form.settings())
    assert study.attention_min_correct == kept
    too_high = StudyForm(_form_data(TaskKind.RELATEDNESS, split, attention_min_correct="101"))
    assert not too_high.is_valid() and "attention_min_correct" in too_high.errors


@pytest.mark.django_db
def test_the_study_page_states_the_rule(researcher_client):
    study = open_kind_study(TaskKind.RELATEDNESS, rawc_samples())
    page = researcher_client.get(reverse("studies:detail", args=[study.pk])).content.decode()
    assert "fewer than 50% of their attention checks right are excluded" in page
    assert "one item per word" in page
    assert "2 bot checks after consent" in page
    plain = open_study(2, per_participant=2, ratings=1, slug="plain")
    page = researcher_client.get(reverse("studies:detail", args=[plain.pk])).content.decode()
    assert "one wrong attention check excludes a participant" in page
