"""Abandoned sessions: their unrated slots go back to the pool after the time limit."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from annotations.models import Rating
from studies import services
from studies.models import Participant, Slot
from studies.selectors import batch_items

from .helpers import open_study, pid, qualify, rate_all

pytestmark = pytest.mark.django_db(transaction=True)


def _rate_first(participant: Participant, n: int) -> None:
    """Answer items in order (checks correctly) until ``n`` samples are rated."""
    checks = {a.position: a.question.expected for a in participant.attention_answers.all()}
    for item in batch_items(participant):
        if n == 0:
            break
        score = checks.get(item.position, 2)
        services.item_save(
            participant=participant, position=item.position, answer=services.Answer(score=score)
        )
        n -= item.position not in checks


def _age(participant: Participant, minutes: int) -> None:
    Participant.objects.filter(pk=participant.pk).update(
        started_at=timezone.now() - timedelta(minutes=minutes)
    )


def test_abandoned_slots_are_reused_by_the_next_arrival_after_the_timeout():
    study = open_study(4, per_participant=4, ratings=1, minutes=30)  # 24 slots: 6 batches
    quitters = [services.participant_arrive(study=study, pid=pid(n)) for n in range(6)]
    for quitter in quitters:
        qualify(quitter)
        _rate_first(quitter, 1)  # one rating each, then they abandon
    with pytest.raises(services.StudyFull):
        services.participant_arrive(study=study, pid=pid(50))
    released = set(
        Slot.objects.filter(participant__in=quitters, status="reserved").values_list(
            "id", flat=True
        )
    )
    for quitter in quitters:
        _age(quitter, 31)
    newcomer = services.participant_arrive(study=study, pid=pid(51))  # expires the quitters
    assert Participant.objects.filter(status="timed_out").count() == 6
    assert set(newcomer.slots.values_list("id", flat=True)) <= released
    assert Slot.objects.filter(participant__in=quitters, status="done").count() == 6
    qualify(newcomer)
    rate_all(newcomer)
    assert Rating.objects.filter(rater__participant__study=study).count() == 6 + 4


def test_the_command_times_out_sessions_and_a_late_save_is_refused():
    study = open_study(4, per_participant=4, ratings=1, minutes=30)
    participant = services.participant_arrive(study=study, pid=pid(1))
    qualify(participant)
    _age(participant, 31)
    call_command("expire_study_sessions")
    participant.refresh_from_db()
    assert participant.status == Participant.Status.TIMED_OUT
    assert Slot.objects.filter(study=study, status="free").count() == 24
    with pytest.raises(services.SessionOver):
        services.item_save(participant=participant, position=0, answer=services.Answer(score=1))
    assert not Rating.objects.filter(rater=participant.rater).exists()


def test_a_late_save_times_the_participant_out_even_without_the_command():
    study = open_study(4, per_participant=4, ratings=1, minutes=30)
    participant = services.participant_arrive(study=study, pid=pid(1))
    qualify(participant)
    _age(participant, 31)
    with pytest.raises(services.SessionOver):
        services.item_save(participant=participant, position=0, answer=services.Answer(score=1))
    participant.refresh_from_db()
    assert participant.status == Participant.Status.TIMED_OUT
    assert not Slot.objects.filter(participant=participant, status="reserved").exists()


def test_an_unqualified_hold_is_brief_and_a_qualified_one_lasts_the_time_limit():
    study = open_study(4, per_participant=4, ratings=1, minutes=30)  # 24 slots: 6 batches
    study.qualification_minutes = 5
    study.save()
    waiting = services.participant_arrive(study=study, pid=pid(1))
    rating = services.participant_arrive(study=study, pid=pid(2))
    qualify(rating)
    for participant in (waiting, rating):
        _age(participant, 6)  # past the brief hold, well within the time limit
    assert services.participants_expire(study=study) == 1
    waiting.refresh_from_db()
    rating.refresh_from_db()
    assert (waiting.status, rating.status) == ("timed_out", "qualified")
    assert not Slot.objects.filter(participant=waiting, status="reserved").exists()
    assert Slot.objects.filter(participant=rating, status="reserved").count() == 4
    answers = {q.pk: q.expected for q in study.check_questions.filter(in_qualification=True)}
    with pytest.raises(services.SessionOver):  # the batch went to others ...
        services.participant_qualify(participant=waiting, answers=answers)
    waiting.refresh_from_db()  # ... but the answers are kept, graded and marked late
    assert waiting.status == "timed_out" and waiting.qualification_late
    given = {str(pk): a for pk, a in answers.items()}
    assert len(waiting.qualification_answers) == 4  # the questions drawn for them
    assert waiting.qualification_answers.items() <= given.items()
    assert waiting.qualified_at is not None and waiting.finished_at is not None


def test_late_failing_answers_after_the_batch_went_to_others_screen_out():
    study = open_study(4, per_participant=4, ratings=1, minutes=30)
    participant = services.participant_arrive(study=study, pid=pid(1))
    _age(participant, 11)
    services.participants_expire(study=study)
    participant.refresh_from_db()
    answers = {q.pk: 3 for q in study.check_questions.filter(in_qualification=True)}
    assert services.participant_qualify(participant=participant, answers=answers) is False
    participant.refresh_from_db()
    assert participant.status == "screened_out" and participant.qualification_late
    assert set(participant.qualification_answers.values()) == {3}


def test_a_late_qualification_whose_batch_is_still_held_goes_on_marked_late():
    study = open_study(4, per_participant=4, ratings=1, minutes=30)
    participant = services.participant_arrive(study=study, pid=pid(1))
    _age(participant, 11)  # the default brief hold is 10 minutes; no sweep has run
    qualify(participant)
    participant.refresh_from_db()
    assert participant.status == Participant.Status.QUALIFIED
    assert participant.qualification_late and participant.qualification_answers
    assert Slot.objects.filter(participant=participant, status="reserved").count() == 4
    qualify(participant)  # a second attempt changes nothing
    assert Participant.objects.get(pk=participant.pk).status == "qualified"


def test_a_qualification_after_the_studys_time_limit_is_kept_and_times_out():
    study = open_study(4, per_participant=4, ratings=1, minutes=30)
    participant = services.participant_arrive(study=study, pid=pid(1))
    _age(participant, 31)  # past the hold and the time limit: no time left to rate
    with pytest.raises(services.SessionOver):
        qualify(participant)
    participant.refresh_from_db()
    assert participant.status == Participant.Status.TIMED_OUT
    assert participant.qualification_late and participant.qualification_answers
    assert Slot.objects.filter(study=study, status="free").count() == 24
