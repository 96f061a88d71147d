"""Relatedness and sense-choice studies on the same machinery: batches, catch trials, the
answers each kind accepts."""

from __future__ import annotations

import pytest

from annotations.models import RaterExclusion, Rating, TaskKind
from studies import services
from studies.selectors import batch_items

from .helpers import BOT_ANSWERS, pid
from .kinds_helpers import fool_samples, open_kind_study, rawc_samples

pytestmark = pytest.mark.django_db


def _arrive(study, n: int = 1):
    participant = services.participant_arrive(study=study, pid=pid(n), resume_hash=f"h{n}")
    assert services.participant_qualify(  # no test: the bot checks only
        participant=participant, answers={}, bot_answers=BOT_ANSWERS
    )
    return participant


def test_a_relatedness_study_starts_with_the_papers_two_catch_trials():
    study = open_kind_study(TaskKind.RELATEDNESS, rawc_samples())
    checks = {
        q.homonym: (q.precontext == q.sentence, q.expected) for q in study.check_questions.all()
    }
    assert checks == {"dog": (True, 4), "rose": (False, 0)}
    assert study.attention_checks_per_batch == 2
    assert "totally unrelated" in study.guidelines


def test_a_relatedness_batch_marks_the_word_and_takes_0_to_4():
    study = open_kind_study(TaskKind.RELATEDNESS, rawc_samples())
    participant = _arrive(study)
    items = batch_items(participant)
    assert len(items) == 6
    sample_item = next(item for item in items if item.sample_id)
    assert sample_item.target.lower() in sample_item.precontext.lower()
    expected = {a.position: a.question.expected for a in participant.attention_answers.all()}
    for item in items[: sample_item.position + 1]:  # in order, checks passed
        score = expected.get(item.position, 0)
        services.item_save(
            participant=participant, position=item.position, answer=services.Answer(score=score)
        )
    rating = Rating.objects.get(rater=participant.rater)
    assert (rating.kind, rating.score) == (TaskKind.RELATEDNESS, 0)


def test_failed_catch_trials_exclude_the_participant_below_half_right():
    """RAW-C's rule (``Study.attention_min_correct`` 50 for relatedness): one of the two
    catch trials wrong keeps the participant, both wrong excludes them."""
    study = open_kind_study(TaskKind.RELATEDNESS, rawc_samples())
    assert study.attention_min_correct == 50
    participant = _arrive(study)
    checks = {a.position for a in participant.attention_answers.all()}
    excluded_after = []
    for item in batch_items(participant):
        score = 2  # wrong for both catch trials (expected 4 and 0)
        services.item_save(
            participant=participant, position=item.position, answer=services.Answer(score=score)
        )
        if item.position in checks:
            excluded_after.append(RaterExclusion.objects.filter(rater=participant.rater).exists())
    assert excluded_after == [False, True]
    exclusion = RaterExclusion.objects.get(rater=participant.rater)
    assert exclusion.source == "attention_check" and "2 of 2 wrong" in exclusion.reason


def test_a_sense_choice_batch_offers_the_candidates_and_refuses_another_index():
    study = open_kind_study(TaskKind.SENSE_CHOICE, fool_samples("1"))
    participant = _arrive(study)
    items = batch_items(participant)
    assert len(items) == 4 and all(len(item.choices) == 2 for item in items)
    first = items[0]
    assert first.target and f"<t>{first.target}</t>" in first.sentence
    with pytest.raises(services.StudyError, match="meanings shown"):
        services.item_save(participant=participant, position=0, answer=services.Answer(score=5))
    services.item_save(participant=participant, position=0, answer=services.Answer(score=1))
    assert Rating.objects.get(rater=participant.rater).kind == TaskKind.SENSE_CHOICE


def test_a_plausibility_study_refuses_relatedness_pairs():
    with pytest.raises(services.StudyError):
        services.study_create(title="t", slug="t", samples=rawc_samples(2))


def test_a_two_meaning_check_works_as_a_sense_choice_attention_check():
    from studies.models import CheckQuestion

    study = open_kind_study(TaskKind.SENSE_CHOICE, fool_samples("1"))
    CheckQuestion.objects.create(
        study=study, homonym="bat", precontext="", sentence="The <t>bat</t> hung in the cave.",
        meaning="a flying mammal", other_meaning="a club for hitting a ball", expected=0,
        in_qualification=False,
    )  # fmt: skip
    study.attention_checks_per_batch = 1
    study.save()
    participant = _arrive(study, 2)
    check = next(item for item in batch_items(participant) if item.sample_id is None)
    assert [c.gloss for c in check.choices] == ["a flying mammal", "a club for hitting a ball"]
    assert check.target == "bat"


def test_the_preview_of_a_relatedness_study_marks_the_word_in_both_sentences(researcher_client):
    from django.urls import reverse

    study = open_kind_study(TaskKind.RELATEDNESS, rawc_samples())
    html = researcher_client.get(reverse("studies:preview_rate", args=[study.pk, 1])).content
    text = html.decode()
    assert text.count('<strong class="target">') == 2 and "0 = totally unrelated" in text
