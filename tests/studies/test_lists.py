"""Assignment by fixed lists (``studies.lists``) through the services: whole lists per
participant, Latin-square orders, places given back whole, exclusion and inclusion."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest
from django.utils import timezone

from annotations.models import Rating
from studies import lists, services
from studies.assignment import batch_problem
from studies.list_design import ListFileError, item_order
from studies.models import ListSlot, Participant, Slot, StudyList, StudyListItem

from .helpers import open_study, pid, qualify, rate_all, unrated_setups

pytestmark = pytest.mark.django_db


def list_study(n_setups=10, per_list=10, n=3, checks=1, **fields):
    return open_study(
        n_setups, per_participant=per_list, ratings=n, checks=checks, assignment="lists", **fields
    )


def batch(participant) -> list[int]:
    """The participant's samples in the order shown."""
    rows = Slot.objects.filter(participant=participant).order_by("position")
    return list(rows.values_list("sample_id", flat=True))


def list_of(participant) -> list[int]:
    items = StudyListItem.objects.filter(list=participant.list_slot.list).order_by("position")
    return list(items.values_list("sample_id", flat=True))


def arrive(study, n):
    return services.participant_arrive(study=study, pid=pid(n))


def test_each_list_goes_whole_to_exactly_n_participants_in_latin_square_orders():
    study = list_study()  # 60 samples, lists of at most 10: 6 lists of 10
    assert StudyList.objects.filter(study=study).count() == 6
    assert ListSlot.objects.filter(study=study).count() == 18
    people = [arrive(study, k) for k in range(18)]
    with pytest.raises(services.StudyBusy):  # places held by people not yet qualified
        arrive(study, 99)
    for p in people:
        qualify(p)
    with pytest.raises(services.StudyFull):
        arrive(study, 99)
    by_list: dict = {}
    for p in people:
        assert sorted(batch(p)) == sorted(list_of(p))  # the whole list, nothing else
        setups = Slot.objects.filter(participant=p).values_list("setup_id", flat=True)
        assert len(set(setups)) == len(setups)
        by_list.setdefault(p.list_slot.list_id, []).append(p)
    assert sorted(len(v) for v in by_list.values()) == [3] * 6
    for group in by_list.values():
        base = list_of(group[0])
        for p in group:
            rotation = p.list_slot.rotation
            assert batch(p) == [base[i] for i in item_order(len(base), rotation, 3)]
        assert len({tuple(batch(p)) for p in group}) == 3  # three different orders


def test_a_batch_is_inserted_in_sample_order_whatever_its_rotation_shows():
    """Two arrivals of one list number the same samples at once; inserted in the order of
    their rotations they waited on each other's rows (a deadlock: a server error for one
    participant, seen in test_lists_concurrency); in sample order the later one only
    loses the race and tries again."""
    study = list_study()
    people = [arrive(study, k) for k in range(3)]  # three rotations of the first list
    shown = [batch(p) for p in people if p.list_slot.list_id == people[0].list_slot.list_id]
    assert any(order != sorted(order) for order in shown)  # a rotation out of sample order
    for p in people:
        inserted = Slot.objects.filter(participant=p).order_by("id")
        samples = list(inserted.values_list("sample_id", flat=True))
        assert samples == sorted(samples)


def test_without_the_latin_square_each_participant_gets_an_order_of_their_own():
    study = list_study(n=4, latin_square=False)
    people = [arrive(study, k) for k in range(4)]  # the first list's four places
    assert len({p.list_slot.list_id for p in people}) == 1
    assert len({tuple(batch(p)) for p in people}) > 1
    assert all(sorted(batch(p)) == sorted(list_of(people[0])) for p in people)


def test_a_timed_out_place_comes_back_whole_and_the_partial_ratings_stay_in_the_list():
    study = list_study(n=1, checks=0)
    first = arrive(study, 1)
    qualify(first)
    item = Slot.objects.filter(participant=first).order_by("position").first()
    services.item_save(participant=first, position=item.position, answer=services.Answer(score=4))
    Participant.objects.filter(pk=first.pk).update(started_at=timezone.now() - timedelta(days=9))
    assert services.participants_expire(study=study) == 1
    first.list_slot.refresh_from_db()
    assert first.list_slot.status == "released"
    assert list(Slot.objects.filter(participant=first).values_list("status", flat=True)) == ["done"]
    # the whole list again, with the same rotation, to the next arrival
    others = [arrive(study, k) for k in range(2, 7)]
    again = [p for p in others if p.list_slot.list_id == first.list_slot.list_id]
    assert len(again) == 1 and again[0].list_slot.rotation == first.list_slot.rotation
    assert sorted(batch(again[0])) == sorted(list_of(first))
    # the partial rater stays in the list's group (the agreement page reads this)
    place = ListSlot.objects.get(participant__rater_id=first.rater_id)
    assert place.list_id == first.list_slot.list_id and place.status == "released"


def test_a_place_given_back_unrated_is_simply_free_again():
    study = list_study(n=1)
    first = arrive(study, 1)
    place = first.list_slot.pk
    answers = {q.pk: 5 - q.expected for q in study.check_questions.all()}
    assert not services.participant_qualify(participant=first, answers=answers)  # screened out
    assert ListSlot.objects.get(pk=place).status == "free"
    assert not Slot.objects.filter(participant=first).exists()
    assert ListSlot.objects.filter(study=study).count() == 6  # no replacement needed


def test_exclusion_voids_the_place_and_reoffers_the_list_inclusion_withdraws_the_spare():
    study = list_study(n=1)
    p = arrive(study, 1)
    qualify(p)
    rate_all(p)
    services.participant_exclude(rater=p.rater, source="manual", reason="speeder")
    p.list_slot.refresh_from_db()
    assert p.list_slot.status == "void"
    spare = ListSlot.objects.get(list=p.list_slot.list, status="free")
    assert spare.rotation == p.list_slot.rotation
    assert set(Slot.objects.filter(participant=p).values_list("status", flat=True)) == {"void"}
    assert services.participant_include(rater=p.rater) == 0
    p.list_slot.refresh_from_db()
    assert p.list_slot.status == "held" and not ListSlot.objects.filter(pk=spare.pk).exists()
    assert set(Slot.objects.filter(participant=p).values_list("status", flat=True)) == {"done"}


def test_inclusion_after_the_spare_was_taken_reports_the_samples_over():
    study = list_study(n=1)
    p = arrive(study, 1)
    qualify(p)
    rate_all(p)
    services.participant_exclude(rater=p.rater, source="manual", reason="speeder")
    taker = [arrive(study, k) for k in range(2, 7)]
    assert any(t.list_slot.list_id == p.list_slot.list_id for t in taker)
    assert services.participant_include(rater=p.rater) == 10
    p.list_slot.refresh_from_db()
    assert p.list_slot.status == "released"


def test_uploaded_lists_replace_the_made_ones_and_a_bad_file_changes_nothing():
    samples = unrated_setups(4)
    study = services.study_create(
        title="t", slug="up", samples=samples, assignment="lists", ratings_per_sample=2
    )
    ids = [s.dataset_id for s in samples]
    assert lists.lists_upload(study=study, text=f"{ids[0]},{ids[6]}\n{ids[12]}\n") == 2
    with pytest.raises(ListFileError, match="line 2: list 2: .* second variant"):
        lists.lists_upload(study=study, text=f"{ids[1]}\n{ids[6]},{ids[7]}\n")
    assert StudyListItem.objects.filter(list__study=study).count() == 3
    services.study_open(study=study)
    assert ListSlot.objects.filter(study=study).count() == 4
    with pytest.raises(services.StudyError, match="draft"):
        lists.lists_upload(study=study, text=f"{ids[0]}\n")


def test_lists_refuse_adaptive_allocation():
    study = services.study_create(
        title="t", slug="ad", samples=unrated_setups(2), assignment="lists", adaptive=True
    )
    assert "Adaptive allocation cannot be combined" in batch_problem(study)


def test_every_list_fills_and_each_sample_gets_exactly_n_ratings():
    study = list_study(n=2, checks=0)
    for k in range(12):
        p = arrive(study, k)
        qualify(p)
        rate_all(p)
    per_sample = Counter(
        Rating.objects.filter(rater__participant__study=study).values_list("sample_id", flat=True)
    )
    assert len(per_sample) == 60 and set(per_sample.values()) == {2}
    assert [f.finished for f in lists.list_fill(study)] == [2] * 6


def test_inclusion_after_a_text_edit_keeps_the_edited_item_outdated():
    from studies.text_corrections import sample_texts_correct

    study = list_study(n=1)
    p = arrive(study, 1)
    qualify(p)
    rate_all(p)
    services.participant_exclude(rater=p.rater, source="manual", reason="speeder")
    mine = Slot.objects.filter(participant=p)
    edited = mine.first().sample
    changed = sample_texts_correct(study=study, sample=edited, texts={"sentence": "New."})
    services.participant_include(rater=p.rater)
    outdated = set(mine.filter(status="outdated").values_list("sample_id", flat=True))
    assert outdated == {s.pk for s in changed} & set(batch(p))  # the old text's ratings
    assert outdated and mine.filter(status="done").count() == 10 - len(outdated)


def test_the_list_length_of_an_opened_study_cannot_change():
    study = list_study()  # lists of 10, made on opening
    with pytest.raises(services.StudyError, match="list length"):
        services.study_update(study=study, samples_per_participant=5)
    study.refresh_from_db()
    assert study.samples_per_participant == 10


def test_inclusion_mid_list_gives_the_participant_their_unrated_items_back():
    study = list_study(n=1)
    p = arrive(study, 1)
    qualify(p)
    services.participant_exclude(rater=p.rater, source="manual", reason="speeder")
    services.participant_include(rater=p.rater)
    mine = Slot.objects.filter(participant=p)
    assert set(mine.values_list("status", flat=True)) == {"reserved"}
    rate_all(p)
    assert set(mine.values_list("status", flat=True)) == {"done"}


def test_a_drafts_made_lists_follow_a_new_list_length():
    study = services.study_create(
        title="t", slug="t", samples=unrated_setups(10), samples_per_participant=10,
        ratings_per_sample=1, assignment="lists",
    )  # fmt: skip
    lists.lists_make(study=study)  # the researcher looked at the lists of 10
    services.study_update(study=study, samples_per_participant=5)
    services.study_open(study=study)
    sizes = Counter(StudyListItem.objects.filter(list__study=study).values_list("list", flat=True))
    assert set(sizes.values()) == {5}
