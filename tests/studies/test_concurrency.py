"""Assignment under real concurrency (PostgreSQL: row locks + SKIP LOCKED + constraints)."""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from django.db import connection, connections

from annotations.models import Rating, Sample
from studies import services
from studies.models import Participant, Slot

from .helpers import open_study, pid, qualify, rate_all

THREADS = 50
BATCH = 12
N = 5


def _participant_run(study, n: int, barrier: threading.Barrier, errors: list) -> None:
    try:
        barrier.wait(timeout=60)
        participant = services.participant_arrive(study=study, pid=pid(n))
        qualify(participant)
        rate_all(participant)
    except Exception as exc:  # collected and asserted on in the main thread
        errors.append(f"{n}: {exc!r}")
    finally:
        connections.close_all()


@pytest.mark.django_db(transaction=True)
def test_fifty_parallel_participants_fill_every_sample_exactly():
    if connection.vendor != "postgresql":
        pytest.skip("row-lock concurrency needs PostgreSQL (CI runs it there)")
    study = open_study(20, per_participant=BATCH, ratings=N, checks=1, slug="load")
    assert Sample.objects.filter(studies=study).count() == 120
    barrier = threading.Barrier(THREADS)
    errors: list[str] = []
    threads = [
        threading.Thread(target=_participant_run, args=(study, n, barrier, errors))
        for n in range(THREADS)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=170)
    assert errors == []
    finished = Participant.objects.filter(study=study, status=Participant.Status.FINISHED)
    assert finished.count() == THREADS
    ratings = Rating.objects.valid().filter(rater__participant__study=study)
    assert ratings.count() == THREADS * BATCH  # nothing lost, nothing duplicated
    per_sample = Counter(ratings.values_list("sample_id", flat=True))
    assert set(per_sample.values()) == {N} and len(per_sample) == 120
    per_setup = Counter(ratings.values_list("rater_id", "sample__story__setup_id"))
    assert max(per_setup.values()) == 1  # nobody rated two samples of one setup
    assert not Slot.objects.filter(study=study).exclude(status="done").exists()
    with pytest.raises(services.StudyFull):
        services.participant_arrive(study=study, pid=pid(999))
