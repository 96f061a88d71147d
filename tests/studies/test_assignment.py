"""The assignment rules on any database, including the compare-and-set path SQLite relies on."""

from __future__ import annotations

import random

import pytest

from studies import assignment, free_counts, services
from studies.assignment import Candidate, SetupFree, choose, pick, rank
from studies.models import Slot

from .helpers import held_setups, open_study, pid, qualify


def test_choose_takes_one_slot_per_setup_and_prefers_fuller_setups_and_lower_numbers():
    cands = [Candidate(slot_id=i, setup_id=i % 3, number=1 + i // 3) for i in range(9)]
    cands.append(Candidate(slot_id=99, setup_id=7, number=1))  # a setup with one free slot
    picked = choose(cands, 3, random.Random(1))
    assert sorted(c.setup_id for c in picked) == [0, 1, 2]
    assert all(c.number == 1 for c in picked)


def test_choose_returns_fewer_when_there_are_not_enough_setups():
    cands = [Candidate(slot_id=i, setup_id=0, number=i + 1) for i in range(5)]
    assert len(choose(cands, 2, random.Random(1))) == 1


def test_rank_orders_by_free_slots_then_lowest_number_and_breaks_ties_at_random():
    setups = [SetupFree(1, 3, 2), SetupFree(2, 5, 4), SetupFree(3, 3, 1), SetupFree(4, 1, 1)]
    assert [s.setup_id for s in rank(setups, 3, random.Random(1))] == [2, 3, 1]
    assert rank(setups, 9, random.Random(1))[-1].setup_id == 4  # fewer than k: all of them
    tied = [SetupFree(i, 2, 1) for i in range(20)]
    firsts = {rank(tied, 1, random.Random(seed))[0].setup_id for seed in range(30)}
    assert len(firsts) > 3


def test_pick_takes_a_lowest_numbered_slot_of_each_setup_and_skips_setups_without_one():
    cands = [Candidate(10, 1, 2), Candidate(11, 1, 3), Candidate(12, 2, 1), Candidate(13, 2, 1)]
    setups = [SetupFree(1, 2, 2), SetupFree(2, 2, 1), SetupFree(3, 1, 1)]
    got = pick(cands, setups, random.Random(0))
    assert [c.setup_id for c in got] == [1, 2]
    assert got[0].slot_id == 10 and got[1].slot_id in (12, 13)
    seen = {pick(cands, [SetupFree(2, 2, 1)], random.Random(s))[0].slot_id for s in range(20)}
    assert seen == {12, 13}


@pytest.mark.django_db
def test_the_database_path_reads_per_setup_counts_not_every_free_slot():
    """An arrival reads one row per setup (a GROUP BY) and then only the chosen setups'
    lowest slots: on a study of 40 setups x 6 samples x 5 slots (1200 free slots) it
    fetches far fewer rows than there are slots."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    study = open_study(40, per_participant=10, ratings=5, checks=0)
    with CaptureQueriesContext(connection) as ctx:
        services.participant_arrive(study=study, pid=pid(1))
    reads = [q["sql"] for q in ctx.captured_queries if "FROM studies_slot" in q["sql"]]
    assert any("GROUP BY setup_id" in sql for sql in reads)
    assert not any(
        sql.startswith('SELECT "studies_slot"."id", "studies_slot"."setup_id"') for sql in reads
    )
    taken = Slot.objects.filter(study=study).exclude(status="free")
    assert taken.count() == 10 and taken.values("setup_id").distinct().count() == 10
    assert set(taken.values_list("number", flat=True)) == {1}


@pytest.mark.django_db
def test_samples_with_the_fewest_ratings_go_first():
    study = open_study(4, per_participant=4, ratings=3, checks=0)
    for n in range(6):  # 6 x 4 = 24 = one slot of every sample
        services.participant_arrive(study=study, pid=pid(n))
    taken = Slot.objects.filter(study=study).exclude(status="free")
    assert set(taken.values_list("number", flat=True)) == {1}
    assert taken.values("sample_id").distinct().count() == 24


@pytest.mark.django_db
def test_a_reservation_that_loses_a_race_is_retried_without_double_booking(monkeypatch):
    """SQLite ignores row locks: a slot taken between reading and claiming makes the
    compare-and-set update touch no row, and the whole reservation starts again."""
    study = open_study(4, per_participant=4, ratings=2, checks=0)
    first = services.participant_arrive(study=study, pid=pid(1))
    stolen = first.slots.first()
    real_claim = assignment._claim
    calls = []

    def stale_claim(study, k, rng, rounds):
        got = real_claim(study, k, rng, rounds)
        if not calls:
            calls.append(1)
            got[0] = Candidate(stolen.id, got[0].setup_id, got[0].number)
        return got

    monkeypatch.setattr(assignment, "_claim", stale_claim)
    second = services.participant_arrive(study=study, pid=pid(2))
    assert calls == [1]
    assert second.slots.count() == 4 and stolen.id not in second.slots.values_list("id", flat=True)
    stolen.refresh_from_db()
    assert stolen.participant_id == first.pk


@pytest.mark.django_db
def test_slots_held_by_another_arrival_are_passed_over_without_counting_again(monkeypatch):
    """A collision (``SKIP LOCKED`` leaves out rows another arrival holds, played here by
    refusing the first round's first three picks) is resolved from the first count: the
    free slots are counted once, the held setups are left for others, and the batch still
    takes distinct setups with nothing double-booked."""
    study = open_study(40, per_participant=10, ratings=5, checks=0)
    real_lock, real_count = assignment._lock_free, assignment._free_setups
    held: set[int] = set()
    counts = []

    def lock_free(ids):
        if not held:  # the first round: three of its picks are someone else's
            held.update(ids[:3])
        return real_lock([i for i in ids if i not in held])

    def free_setups(study):
        counts.append(1)
        return real_count(study)

    monkeypatch.setattr(assignment, "_lock_free", lock_free)
    monkeypatch.setattr(assignment, "_free_setups", free_setups)
    participant = services.participant_arrive(study=study, pid=pid(1))
    assert len(counts) == 1
    taken = list(participant.slots.values_list("id", "setup_id"))
    assert len(taken) == 10 and len({s for _, s in taken}) == 10
    assert not held & {i for i, _ in taken}


def _counting():
    """The statements that count a study's free slots (``sql.slot_free_per_setup``)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    ctx = CaptureQueriesContext(connection)

    def counts() -> int:
        return sum("GROUP BY setup_id" in q["sql"] for q in ctx.captured_queries)

    return ctx, counts


def _counts_over_arrivals(study, arrivals: int) -> int:
    """How many times ``arrivals`` arrivals in a row count the study's free slots."""
    ctx, counts = _counting()
    with ctx:
        for n in range(arrivals):
            services.participant_arrive(study=study, pid=pid(n))
    return counts()


def _assert_full(study, *, places: int) -> None:
    """The next arrival is refused as the study is full, no slot is free, and the ``places``
    slots are held by distinct (participant, setup) pairs: nothing was booked twice."""
    with pytest.raises(services.StudyFull):
        services.participant_arrive(study=study, pid=pid(99))
    assert not Slot.objects.filter(study=study, status="free").exists()
    held = Slot.objects.filter(study=study).values("participant", "setup").distinct().count()
    assert held == places


@pytest.mark.django_db
def test_arrivals_a_moment_apart_share_one_count_less_what_each_took(settings):
    """Within ``ARRIVAL_COUNT_SECONDS`` an arrival ranks from its process's latest count
    less the slots the process took since: the second of two arrivals counts nothing, and
    with the first batch subtracted it takes the ten setups the first left (one more free
    slot each). Without the subtraction all twenty would tie and it would take any ten."""
    settings.ARRIVAL_COUNT_SECONDS = 60
    study = open_study(20, per_participant=10, ratings=1, checks=0)
    ctx, counts = _counting()
    with ctx:
        first = services.participant_arrive(study=study, pid=pid(1))
        second = services.participant_arrive(study=study, pid=pid(2))
    assert counts() == 1
    assert len(set(held_setups(first)) | set(held_setups(second))) == 20


@pytest.mark.django_db
def test_an_older_count_never_ranks_near_full_setups_nor_finds_the_study_full(settings):
    """Eight setups of six slots, four per batch: twelve batches. The latest count (less
    what this process took) is trusted while every chosen setup has more than ``NEAR_FULL``
    free slots and at least ``ROOM`` x 4 setups have some: the second to eighth arrivals
    count nothing, the ninth to twelfth count afresh, and the thirteenth is refused from a
    fresh count, not from the older one."""
    settings.ARRIVAL_COUNT_SECONDS = 60
    study = open_study(8, per_participant=4, ratings=1, checks=0)
    ctx, counts = _counting()
    per_arrival = []
    with ctx:
        for n in range(12):
            before = counts()
            qualify(services.participant_arrive(study=study, pid=pid(n)))
            per_arrival.append(counts() - before)
        assert per_arrival == [1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1]
        _assert_full(study, places=48)


@pytest.mark.django_db
def test_a_batch_of_most_of_the_setups_is_always_ranked_from_a_fresh_count(settings):
    """Four setups, four per batch: each batch must take exactly the right setups, so no
    arrival ranks from an older count (fewer than ``ROOM`` x 4 setups)."""
    settings.ARRIVAL_COUNT_SECONDS = 60
    study = open_study(4, per_participant=4, ratings=1, checks=0)
    assert _counts_over_arrivals(study, 3) == 3


@pytest.mark.django_db
def test_slots_another_process_took_since_the_count_are_not_booked_twice(settings, monkeypatch):
    """The count this process took does not know what other processes claimed since (here:
    arrivals that do not subtract what they take, so the count never changes). Arrivals
    ranking from it still get batches of free slots of distinct setups, every place of the
    study is filled, and then the next arrival is told the study is full: nothing is booked
    twice."""
    settings.ARRIVAL_COUNT_SECONDS = 60
    study = open_study(8, per_participant=4, ratings=1, checks=0)
    qualify(services.participant_arrive(study=study, pid=pid(0)))  # the count: 5 or 6 free
    with monkeypatch.context() as elsewhere:
        elsewhere.setattr(free_counts, "taken", lambda study_id, unit, units: None)
        for n in range(1, 12):
            qualify(services.participant_arrive(study=study, pid=pid(n)))
    _assert_full(study, places=48)


@pytest.mark.django_db
def test_with_no_seconds_every_arrival_counts_afresh(settings):
    settings.ARRIVAL_COUNT_SECONDS = 0
    study = open_study(20, per_participant=10, ratings=1, checks=0)
    assert _counts_over_arrivals(study, 3) == 3
