"""Assignment by lists under real concurrency (PostgreSQL: SKIP LOCKED, the compare-and-set
and the constraints), oversubscribed: every list goes whole to exactly N participants."""

from __future__ import annotations

import threading
from collections import Counter
from datetime import timedelta

import pytest
from django.db import connection, connections
from django.utils import timezone

from annotations.models import Rating
from studies import lists, services
from studies.models import ListSlot, Participant, Slot, StudyListItem

from .helpers import open_study, pid, qualify, rate_all, wait_for_connections

pytestmark = pytest.mark.concurrency

THREADS = 40
N = 5


def _run(study, n: int, barrier: threading.Barrier, outcomes: list) -> None:
    try:
        barrier.wait(timeout=60)
        participant = services.participant_arrive(study=study, pid=pid(n))
        qualify(participant)
        rate_all(participant)
        outcomes.append("rated")
    except (services.StudyFull, services.StudyBusy):
        outcomes.append("refused")
    except Exception as exc:  # collected and asserted on in the main thread
        outcomes.append(f"{n}: {exc!r}")
    finally:
        connections.close_all()


@pytest.mark.django_db(transaction=True)
def test_forty_arrivals_for_thirty_list_places_fill_every_list_exactly_and_whole():
    if connection.vendor != "postgresql":
        pytest.skip("row-lock concurrency needs PostgreSQL (CI runs it there)")
    # 10 setups x 6 = 60 samples in 6 lists of 10; 5 participants each: 30 places
    study = open_study(
        10, per_participant=10, ratings=N, checks=1, slug="lists-load", assignment="lists"
    )
    assert ListSlot.objects.filter(study=study).count() == 30
    wait_for_connections(THREADS)
    barrier = threading.Barrier(THREADS)
    outcomes: list[str] = []
    threads = [
        threading.Thread(target=_run, args=(study, n, barrier, outcomes)) for n in range(THREADS)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=170)
    assert sorted(Counter(outcomes).items()) == [("rated", 30), ("refused", 10)], outcomes
    finished = Participant.objects.filter(study=study, status=Participant.Status.FINISHED)
    assert finished.count() == 30
    places = ListSlot.objects.filter(study=study)
    assert set(places.values_list("status", flat=True)) == {"held"}
    per_list = Counter(places.values_list("list_id", flat=True))
    assert set(per_list.values()) == {N}
    for place in places:  # each participant rated exactly their list, nothing else
        rated = set(
            Rating.objects.filter(rater=place.participant.rater_id).values_list(
                "sample_id", flat=True
            )
        )
        items = set(
            StudyListItem.objects.filter(list=place.list_id).values_list("sample_id", flat=True)
        )
        assert rated == items
    rotations = Counter(places.values_list("list_id", "rotation"))
    assert set(rotations.values()) == {1}  # one participant per list and rotation
    per_sample = Counter(
        Rating.objects.filter(rater__participant__study=study).values_list("sample_id", flat=True)
    )
    assert len(per_sample) == 60 and set(per_sample.values()) == {N}
    assert not Slot.objects.filter(study=study).exclude(status="done").exists()
    assert [f.finished for f in lists.list_fill(study)] == [N] * 6


@pytest.mark.django_db(transaction=True)
def test_places_timed_out_mid_list_are_reoffered_whole_to_concurrent_arrivals():
    if connection.vendor != "postgresql":
        pytest.skip("row-lock concurrency needs PostgreSQL (CI runs it there)")
    study = open_study(
        10, per_participant=10, ratings=N, checks=0, slug="lists-late", assignment="lists"
    )
    first = [services.participant_arrive(study=study, pid=pid(1000 + k)) for k in range(30)]
    late = first[::3]  # 10 of them, two in each of five lists: rate 3 items, then vanish
    for participant in first:
        qualify(participant)
        if participant in late:
            for item in Slot.objects.filter(participant=participant).order_by("position")[:3]:
                services.item_save(
                    participant=participant,
                    position=item.position,
                    answer=services.Answer(score=2),
                )
        else:
            rate_all(participant)
    Participant.objects.filter(pk__in=[p.pk for p in late]).update(
        started_at=timezone.now() - timedelta(days=9)
    )
    # 20 arrivals at once find the study full, sweep the late sessions (each place is given
    # back by one of them) and race for the 10 replacement places
    wait_for_connections(20)
    barrier = threading.Barrier(20)
    outcomes: list[str] = []
    threads = [threading.Thread(target=_run, args=(study, n, barrier, outcomes)) for n in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=170)
    # nothing failed; an arrival that found the study full and expired nobody itself is
    # refused (the arrival path's rule), so later arrivals take what is left
    assert set(outcomes) <= {"rated", "refused"}, outcomes
    assert 1 <= outcomes.count("rated") <= 10
    later = outcomes.count("rated")
    while True:
        try:
            participant = services.participant_arrive(study=study, pid=pid(2000 + later))
        except services.StudyFull:
            break
        qualify(participant)
        rate_all(participant)
        later += 1
    assert later == 10  # exactly the ten places given back, each once
    places = ListSlot.objects.filter(study=study)
    assert Counter(places.values_list("status", flat=True)) == {"held": 30, "released": 10}
    held = places.filter(status="held")
    assert held.filter(participant__status="finished").count() == 30
    assert set(Counter(held.values_list("list_id", flat=True)).values()) == {N}
    for place in held:  # every place was rated whole: the replacements too
        rated = set(
            Rating.objects.filter(rater=place.participant.rater_id).values_list(
                "sample_id", flat=True
            )
        )
        items = set(
            StudyListItem.objects.filter(list=place.list_id).values_list("sample_id", flat=True)
        )
        assert rated == items
    for place in places.filter(status="released"):  # the partial ratings stay in their list
        assert Rating.objects.filter(rater=place.participant.rater_id).count() == 3
        assert held.filter(list_id=place.list_id, rotation=place.rotation).count() == 1
