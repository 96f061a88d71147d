"""Study lifecycle, arrival, qualification, saving and finishing (any database)."""

from __future__ import annotations

from collections import Counter

import pytest

from annotations.models import Rating, Sample
from studies import services
from studies.models import Participant, Slot, Study
from studies.selectors import batch_items

from .helpers import PID, open_study, pid, qualify, rate_all, unrated_setups

pytestmark = pytest.mark.django_db


def test_it_refuses_to_open_a_study_needing_more_samples_per_participant_than_setups():
    study = services.study_create(
        title="t", slug="t", samples=unrated_setups(3), samples_per_participant=4
    )
    with pytest.raises(services.StudyError, match="only 3 setups"):
        services.study_open(study=study)
    study.refresh_from_db()
    assert study.status == Study.Status.DRAFT


def test_it_refuses_to_open_a_study_without_samples():
    study = services.study_create(title="t", slug="t", samples=[])
    with pytest.raises(services.StudyError, match="no samples"):
        services.study_open(study=study)


def test_it_prefills_the_papers_defaults():
    study = services.study_create(title="t", slug="t", samples=[])
    assert study.ratings_per_sample == 5 and study.samples_per_participant == 30
    assert study.attention_checks_per_batch == 1
    assert "Introduction to the Plausibility Annotation Task" in study.guidelines
    words = list(study.check_questions.values_list("homonym", flat=True))
    # each qualification story with either meaning, then the attention checks
    assert words == ["hard", "lousy", "fan", "beat"] * 2 + ["bark", "match", "spring"]
    checks = study.check_questions.filter(as_attention_check=True)
    assert list(checks.values_list("homonym", flat=True)) == ["bark", "match", "spring"]


def test_opening_creates_one_slot_per_wanted_rating():
    study = open_study(4, ratings=3)
    assert Slot.objects.filter(study=study).count() == 24 * 3


def test_it_reserves_a_batch_of_distinct_setups_with_checks_at_arrival():
    study = open_study(4, per_participant=4, checks=1)
    participant = services.participant_arrive(study=study, pid=PID)
    items = batch_items(participant)
    assert [i.position for i in items] == [0, 1, 2, 3, 4]
    setups = list(participant.slots.values_list("setup_id", flat=True))
    assert len(setups) == 4 == len(set(setups))
    assert participant.attention_answers.count() == 1


def test_the_same_pid_gets_the_same_participant_and_batch():
    study = open_study(4)
    first = services.participant_arrive(study=study, pid=PID, resume_hash="h1")
    again = services.participant_arrive(study=study, pid=PID, resume_hash="h1")
    assert first.pk == again.pk
    assert Participant.objects.count() == 1 and Slot.objects.exclude(status="free").count() == 4


def test_a_full_study_refuses_arrivals_and_stores_nothing():
    study = open_study(4, per_participant=4, ratings=1)  # 24 slots, 4 setups: 6 batches
    for n in range(6):
        qualify(services.participant_arrive(study=study, pid=pid(n)))
    with pytest.raises(services.StudyFull):
        services.participant_arrive(study=study, pid=pid(99))
    assert not Participant.objects.filter(prolific_pid=pid(99)).exists()


def test_places_held_by_people_not_yet_qualified_make_the_study_busy_not_full():
    study = open_study(4, per_participant=4, ratings=1)  # 6 batches
    starters = [services.participant_arrive(study=study, pid=pid(n)) for n in range(6)]
    for starter in starters[:5]:
        qualify(starter)
    with pytest.raises(services.StudyBusy):  # the sixth may still fail its test
        services.participant_arrive(study=study, pid=pid(99))
    assert not Participant.objects.filter(prolific_pid=pid(99)).exists()
    qualify(starters[5])
    with pytest.raises(services.StudyFull):
        services.participant_arrive(study=study, pid=pid(99))


def test_a_retried_consent_resumes_its_batch_even_when_the_study_is_now_full():
    study = open_study(4, per_participant=4, ratings=1)
    for n in range(5):
        qualify(services.participant_arrive(study=study, pid=pid(n)))
    first = services.participant_arrive(study=study, pid=PID, resume_hash="h1")  # the last batch
    again = services.participant_arrive(study=study, pid=PID, resume_hash="h1")
    assert again.pk == first.pk
    assert Slot.objects.filter(participant=first).count() == 4
    with pytest.raises(services.OtherBrowser):
        services.participant_arrive(study=study, pid=PID, resume_hash="another browser")


def test_a_retry_that_finds_no_batch_resumes_the_consent_committed_meanwhile(monkeypatch):
    """The first consent commits while its retry looks for places (its answer was lost)."""
    from studies import assignment

    study = open_study(4, per_participant=4, ratings=1)
    for n in range(5):
        qualify(services.participant_arrive(study=study, pid=pid(n)))
    real_reserve = assignment.batch_reserve

    def reserve_after_the_first_commits(*, create, rng=None):
        monkeypatch.setattr(services, "batch_reserve", real_reserve)
        services.participant_arrive(study=study, pid=PID, resume_hash="h1")
        raise assignment.BatchUnavailable("the first one took the last batch")

    monkeypatch.setattr(services, "batch_reserve", reserve_after_the_first_commits)
    monkeypatch.setattr(services, "participants_expire", lambda **kw: 0)
    retried = services.participant_arrive(study=study, pid=PID, resume_hash="h1")
    assert retried.prolific_pid == PID and Participant.objects.filter(prolific_pid=PID).count() == 1


def test_failing_the_qualification_screens_out_and_releases_the_batch():
    study = open_study(4)
    participant = services.participant_arrive(study=study, pid=PID)
    answers = {q.pk: 3 for q in study.check_questions.all()}
    assert services.participant_qualify(participant=participant, answers=answers) is False
    participant.refresh_from_db()
    assert participant.status == Participant.Status.SCREENED_OUT
    assert not Slot.objects.filter(participant=participant, status="reserved").exists()
    # one attempt only: right answers afterwards change nothing
    qualify_again = {q.pk: q.expected for q in study.check_questions.all()}
    assert services.participant_qualify(participant=participant, answers=qualify_again) is False


def test_saving_an_item_twice_keeps_one_rating():
    study = open_study(4)
    participant = services.participant_arrive(study=study, pid=PID)
    qualify(participant)
    item = next(i for i in batch_items(participant) if not _is_check(participant, i.position))
    for check in participant.attention_answers.filter(position__lt=item.position):
        # items are answered in order: a check placed first is answered first
        services.item_save(
            participant=participant,
            position=check.position,
            answer=services.Answer(score=check.question.expected),
        )
    for score in (2, 4):
        services.item_save(
            participant=participant, position=item.position, answer=services.Answer(score=score)
        )
    ratings = Rating.objects.filter(rater=participant.rater)
    assert [r.score for r in ratings] == [4]
    assert ratings[0].position is None


def _is_check(participant, position):
    return participant.attention_answers.filter(position=position).exists()


def test_finishing_the_batch_finishes_the_participant_and_refuses_more_saves():
    study = open_study(4)
    participant = services.participant_arrive(study=study, pid=PID)
    qualify(participant)
    rate_all(participant)
    participant.refresh_from_db()
    assert participant.status == Participant.Status.FINISHED
    with pytest.raises(services.SessionOver):
        services.item_save(participant=participant, position=0, answer=services.Answer(score=1))
    assert Rating.objects.filter(rater=participant.rater).count() == 4


def test_a_failed_attention_check_excludes_the_rater_and_reopens_their_slots():
    study = open_study(4, ratings=1, per_participant=4)
    participant = services.participant_arrive(study=study, pid=PID)
    qualify(participant)
    rate_all(participant, check_score=3)  # expected 1 or 5 with tolerance 1: 3 always fails
    assert not Rating.objects.valid().filter(sample__in=Sample.objects.filter(studies=study))
    assert Slot.objects.filter(study=study, status="void").count() == 4
    assert Slot.objects.filter(study=study, status="free").count() == 24


def test_graded_checks_pass_within_the_tolerance():
    study = open_study(4)
    participant = services.participant_arrive(study=study, pid=PID)
    qualify(participant)
    check = participant.attention_answers.select_related("question").get()
    near = check.question.expected + (1 if check.question.expected == 1 else -1)
    rate_all(participant, check_score=near)
    check.refresh_from_db()
    assert check.passed is True
    assert Rating.objects.valid().filter(rater=participant.rater).count() == 4


def test_an_exclusion_from_the_annotator_dashboard_reopens_the_participants_slots(
    researcher_client,
):
    study = open_study(4, ratings=1, per_participant=4)
    participant = services.participant_arrive(study=study, pid=PID)
    qualify(participant)
    rate_all(participant)
    assert Slot.objects.filter(study=study, status="done").count() == 4
    url = f"/dashboards/annotators/{participant.rater_id}/exclusion/"

    researcher_client.post(url, {"action": "exclude", "reason": "too fast"})
    assert Slot.objects.filter(study=study, status="void").count() == 4
    assert Slot.objects.filter(study=study, status="free").count() == 24  # 4 replacements
    researcher_client.post(url, {"action": "exclude", "reason": "again"})  # idempotent
    assert Slot.objects.filter(study=study, status="free").count() == 24

    researcher_client.post(url, {"action": "include"})
    assert Slot.objects.filter(study=study, status="done").count() == 4
    assert Slot.objects.filter(study=study, status="free").count() == 20  # withdrawn
    assert Rating.objects.valid().filter(rater=participant.rater).count() == 4


def test_excluding_a_rater_who_is_no_participant_touches_no_slot():
    from annotations.models import Rater

    study = open_study(4, ratings=1, per_participant=4)
    before = list(Slot.objects.filter(study=study).values_list("id", "status"))
    rater = Rater.objects.create(kind=Rater.Kind.IMPORTED, pseudonym="imported-1")
    exclusion = services.participant_exclude(rater=rater, source="quality", reason="x")
    assert exclusion.rater == rater and exclusion.revoked_at is None
    assert list(Slot.objects.filter(study=study).values_list("id", "status")) == before
    assert services.participant_include(rater=rater) == 0


def test_more_ratings_per_sample_on_an_open_study_opens_the_new_places_at_once():
    study = open_study(4, per_participant=4, ratings=2)
    excluded = services.participant_arrive(study=study, pid=pid(1))
    qualify(excluded)
    rate_all(excluded)
    services.participant_exclude(rater=excluded.rater, source="manual", reason="bot")
    services.study_update(study=study, ratings_per_sample=3)  # not only on pause and open
    live = Slot.objects.filter(study=study).exclude(status="void")
    per_sample = Counter(live.values_list("sample_id", flat=True))
    assert set(per_sample.values()) == {3} and len(per_sample) == study.samples.count()


def test_an_open_study_refuses_more_samples_per_participant_than_a_batch_can_hold():
    study = open_study(4, per_participant=4, ratings=2)
    with pytest.raises(services.StudyError, match="only 4 setups"):
        services.study_update(study=study, samples_per_participant=5)
    study.refresh_from_db()
    assert study.samples_per_participant == 4


def test_a_study_refuses_more_attention_checks_per_participant_than_it_has_questions():
    # a batch would get fewer than the welcome page and the guidelines promise ("plus 4
    # check stories (8 stories in all)" over a batch of 7)
    study = open_study(4, per_participant=4, ratings=2)  # the 3 default check stories
    assert study.check_questions.filter(as_attention_check=True).count() == 3
    with pytest.raises(services.StudyError, match="4 attention checks per participant"):
        services.study_update(study=study, attention_checks_per_batch=4)
    study.refresh_from_db()
    assert study.attention_checks_per_batch == 1
    with pytest.raises(services.StudyError, match="only 3 attention-check questions"):
        open_study(4, per_participant=4, ratings=2, checks=4, slug="four")


def test_an_open_study_refuses_attention_checks_without_check_questions():
    study = open_study(4, per_participant=4, ratings=2, checks=0)
    study.check_questions.update(as_attention_check=False)
    with pytest.raises(services.StudyError, match="no attention-check questions"):
        services.study_update(study=study, attention_checks_per_batch=1)
    study.refresh_from_db()
    assert study.attention_checks_per_batch == 0
