"""Assignment by lists under real concurrency (PostgreSQL: SKIP LOCKED, the compare-and-set
and the constraints), oversubscribed: every list goes whole to exactly N participants."""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from django.db import connection, connections

from annotations.models import Rating
from studies import lists, services
from studies.models import ListSlot, Participant, Slot, StudyListItem

from .helpers import open_study, pid, qualify, rate_all

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
