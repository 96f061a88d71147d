"""Assignment under real concurrency (PostgreSQL: row locks + SKIP LOCKED + constraints), through
the services and through the participant pages (arrival link, consent POST, qualification,
one POST per item), oversubscribed."""

from __future__ import annotations

import threading
import time
from collections import Counter

import pytest
from django.db import connection, connections, transaction

from annotations.models import RaterExclusion, Rating, Sample
from studies import assignment, services
from studies.models import ListSlot, Participant, Slot, Study
from tests.locks import a_backend_waits_on, backend_pid

from .helpers import open_study, participant_row, pid, qualify, rate_all, wait_for_connections

pytestmark = pytest.mark.concurrency

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
    wait_for_connections(THREADS)
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


# 1.2x the 30 batches; 36 threads (one connection each) leave room under PostgreSQL's
# default 100 for the other xdist worker (60 lost arrivals to "too many clients")
ARRIVALS = 36


def _next_location(page) -> str:
    """Where a rating POST's answer leads: the item it carries (the script's answer, 200
    with ``X-Page-Url``) or the redirect (a form's 303)."""
    if page.status_code == 200:
        return page["X-Page-Url"]
    assert page.status_code == 303, page.status_code
    return page["Location"]


def _browser_run(study, n: int, barrier: threading.Barrier, outcomes: list) -> None:
    """One participant's browser: link, consent, qualification, every item by POST; odd
    participants post as participant.js does (the next item comes in the answer), even ones as a
    form without scripts (303)."""
    from django.test import Client

    from .test_participant_views import arrive, moved_on, next_url

    try:
        client = Client()
        barrier.wait(timeout=60)
        consent = arrive(client, study, pid(n))
        if not moved_on(consent):
            # no place: "full", or "try again in a few minutes" while some holders have
            # not qualified yet
            full = b"This study is full" in consent.content
            busy = consent.status_code == 429 and b"try again in a few" in consent.content
            refused = ("refused", n, consent.status_code)
            outcomes.append(("no place", n) if full or busy else refused)
            return
        answers = {f"q{q.pk}": q.expected for q in study.check_questions.all()}
        location = next_url(client.post(next_url(consent), answers))
        headers = {"X-Rating-Page": "1"} if n % 2 else {}
        rated = 0
        while "/rate/" in location:
            pos = int(location.rstrip("/").rsplit("/", 1)[1])
            participant = Participant.objects.get(prolific_pid=pid(n))
            check = participant.attention_answers.filter(position=pos).first()
            score = check.question.expected if check else 3
            page = client.post(location, {"score": score, "comment": ""}, headers=headers)
            location = _next_location(page)
            rated += 1
        assert location.endswith("/done/"), location
        outcomes.append(("finished", n, rated))
    except Exception as exc:  # collected and asserted on in the main thread
        outcomes.append(("error", n, repr(exc)))
    finally:
        connections.close_all()


@pytest.mark.django_db(transaction=True)
def test_oversubscribed_arrivals_through_the_consent_post_fill_every_sample_exactly(settings):
    if connection.vendor != "postgresql":
        pytest.skip("row-lock concurrency needs PostgreSQL (CI runs it there)")
    settings.STUDY_RATE_PER_IP = 0
    study = open_study(12, per_participant=BATCH, ratings=N, checks=1, slug="crowd")
    wait_for_connections(ARRIVALS)
    barrier = threading.Barrier(ARRIVALS)
    outcomes: list = []
    threads = [
        threading.Thread(target=_browser_run, args=(study, n, barrier, outcomes))
        for n in range(ARRIVALS)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=170)
    kinds = Counter(o[0] for o in outcomes)
    assert kinds == {"finished": 30, "no place": 6}, outcomes
    assert all(o[2] == BATCH + 1 for o in outcomes if o[0] == "finished")
    assert Participant.objects.filter(study=study).count() == 30  # refused: nothing stored
    ratings = Rating.objects.valid().filter(rater__participant__study=study)
    assert ratings.count() == 30 * BATCH
    per_sample = Counter(ratings.values_list("sample_id", flat=True))
    assert set(per_sample.values()) == {N} and len(per_sample) == 72
    per_setup = Counter(ratings.values_list("rater_id", "sample__story__setup_id"))
    assert max(per_setup.values()) == 1
    assert not Slot.objects.filter(study=study).exclude(status="done").exists()


@pytest.mark.django_db(transaction=True)
def test_a_consent_sent_several_times_at_once_gets_the_last_batch_once():
    """A consent retried while the first attempt is still running (its answer lost) waits
    for it and resumes the same participant: never "full", never a second batch."""
    if connection.vendor != "postgresql":
        pytest.skip("row-lock concurrency needs PostgreSQL (CI runs it there)")
    study = open_study(4, per_participant=4, ratings=1, slug="retry")  # 6 batches
    for n in range(5):
        qualify(services.participant_arrive(study=study, pid=pid(n)))
    barrier = threading.Barrier(4)
    results: list = []

    def consent() -> None:
        try:
            barrier.wait(timeout=30)
            results.append(services.participant_arrive(study=study, pid=pid(77), resume_hash="h"))
        except Exception as exc:  # collected and asserted on in the main thread
            results.append(repr(exc))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=consent) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert all(isinstance(r, Participant) for r in results), results
    assert len({r.pk for r in results}) == 1 and len(results) == 4
    assert Slot.objects.filter(participant=results[0], status="reserved").count() == 4
    assert not Slot.objects.filter(study=study, status="free").exists()


ADAPTIVE_THREADS = 30


def _adaptive_rate(participant) -> None:
    """Half the samples (odd positions) split their raters 1 vs 5, the rest all say 3."""
    from studies.selectors import batch_items

    slots = {s.position: s for s in Slot.objects.filter(participant=participant)}
    for item in batch_items(participant):
        slot = slots[item.position]
        score = 3 if slot.sample.position % 2 == 0 else (1 if participant.pk % 2 else 5)
        services.item_save(
            participant=participant, position=item.position, answer=services.Answer(score=score)
        )


def _adaptive_run(study, n: int, barrier: threading.Barrier, outcomes: list) -> None:
    """Arrive with fresh PIDs until the study is full; "come back" means wait and retry."""
    import random
    import time

    rng = random.Random(n)
    try:
        barrier.wait(timeout=60)
        deadline = time.monotonic() + 300
        j = 0
        while time.monotonic() < deadline:
            try:
                participant = services.participant_arrive(study=study, pid=pid(n * 1000 + j))
            except services.StudyFull:
                outcomes.append(("full", n, j))
                return
            except services.StudyBusy:
                time.sleep(rng.uniform(0.1, 0.3))
                continue
            qualify(participant)
            _adaptive_rate(participant)
            j += 1
        outcomes.append(("deadline", n, j))
    except Exception as exc:  # collected and asserted on in the main thread
        outcomes.append(("error", n, repr(exc)))
    finally:
        connections.close_all()


@pytest.mark.django_db(transaction=True)
def test_adaptive_allocation_under_many_arrivals_keeps_every_maximum_and_setup_rule():
    """Adaptive allocation on: 120 samples start at 3 ratings, the disagreed half grows
    towards 6 within a budget of 432 while 30 threads arrive, rate and come back. Growth
    waits for a sample's ratings to be in, so the growth phase proceeds about one batch at
    a time (the other threads are told to come back)."""
    if connection.vendor != "postgresql":
        pytest.skip("row-lock concurrency needs PostgreSQL (CI runs it there)")
    study = open_study(
        20, per_participant=BATCH, ratings=3, checks=0, slug="adaptive", adaptive=True,
        max_ratings_per_sample=6, target_width=3.0, rating_budget=432,
    )  # fmt: skip
    wait_for_connections(ADAPTIVE_THREADS)
    barrier = threading.Barrier(ADAPTIVE_THREADS)
    outcomes: list = []
    threads = [
        threading.Thread(target=_adaptive_run, args=(study, n, barrier, outcomes))
        for n in range(ADAPTIVE_THREADS)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=320)
    assert Counter(o[0] for o in outcomes) == {"full": ADAPTIVE_THREADS}, outcomes
    assert sum(o[2] for o in outcomes) == Participant.objects.filter(study=study).count()
    counted = Slot.objects.filter(study=study).exclude(status="void")
    per_sample = Counter(counted.values_list("sample_id", flat=True))
    assert len(per_sample) == 120 and max(per_sample.values()) <= 6  # never over the maximum
    assert min(per_sample.values()) >= 3 and sum(per_sample.values()) <= 432  # the budget
    ratings = Rating.objects.valid().filter(rater__participant__study=study)
    rated = Counter(ratings.values_list("sample_id", flat=True))
    done = Counter(counted.filter(status="done").values_list("sample_id", flat=True))
    assert rated == done  # exact quotas: one rating per done place, nothing lost or doubled
    assert not counted.filter(status="reserved").exists()
    free_setups = set(counted.filter(status="free").values_list("setup_id", flat=True))
    assert len(free_setups) < BATCH  # what is left free could never make a batch
    agreed = [s for s, n in rated.items() if Sample.objects.get(pk=s).position % 2 == 0]
    assert all(rated[s] == 3 for s in agreed)  # precise at 3: never grown
    assert sum(rated.values()) > 360  # the disagreed half grew
    per_setup = Counter(ratings.values_list("rater_id", "sample__story__setup_id"))
    assert max(per_setup.values()) == 1  # nobody rated two samples of one setup
    with pytest.raises(services.StudyFull):
        services.participant_arrive(study=study, pid=pid(999_999))


@pytest.mark.django_db
def test_waiting_for_free_connections_names_the_holders_when_none_come_free():
    if connection.vendor != "postgresql":
        pytest.skip("pg_stat_activity is PostgreSQL's")
    wait_for_connections(1, timeout=1)  # there are free ones: returns at once
    with pytest.raises(AssertionError, match="connections needed"):
        wait_for_connections(10_000, timeout=0.5)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("per_process", [1, 0])
def test_the_consents_of_one_process_take_turns_at_the_claim_gate(settings, per_process):
    """``ARRIVAL_CLAIMS_PER_PROCESS`` = 1: one consent transaction of this process at a time
    (the others wait before they begin); 0: all at once."""
    if connection.vendor != "postgresql":
        pytest.skip("row-lock concurrency needs PostgreSQL (CI runs it there)")
    settings.ARRIVAL_CLAIMS_PER_PROCESS = per_process
    study = open_study(8, per_participant=2, ratings=2)
    threads_n = 4
    wait_for_connections(threads_n)
    barrier = threading.Barrier(threads_n)
    guard = threading.Lock()
    inside, most, errors = [0], [0], []

    def create(n):
        with guard:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        time.sleep(0.2)  # in the transaction: the others overlap it unless they wait
        with guard:
            inside[0] -= 1
        return participant_row(study, n)

    def run(n):
        try:
            barrier.wait(timeout=60)
            assignment.batch_reserve(create=lambda: create(n))
        except Exception as exc:  # collected and asserted on in the main thread
            errors.append(f"{n}: {exc!r}")
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(n,)) for n in range(threads_n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert Slot.objects.filter(study=study, status=Slot.Status.RESERVED).count() == 2 * threads_n
    assert most[0] == 1 if per_process == 1 else most[0] > 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("assignment_kind", ["samples", "lists"])
def test_a_replacement_opened_while_the_ratings_per_sample_go_up_takes_its_own_number(
    assignment_kind,
):
    """More ratings per sample (``assignment.slots_create`` under the study row's FOR
    UPDATE, as ``study_update`` calls it) and an exclusion's replacements
    (``numbering.create_numbered``) in two connections, the exclusion arriving after the
    settings change has locked the study and before it numbers its new slots. Both take the
    study's numbers lock, so the exclusion waits and numbers on from the new slots. Before,
    the replacement took the next number first, then waited for the study row (its foreign
    key) while the new slot of that number waited for the replacement: a deadlock, one of
    the two writes failed."""
    if connection.vendor != "postgresql":
        pytest.skip("row-lock concurrency needs PostgreSQL (CI runs it there)")
    study = open_study(4, per_participant=4, ratings=2, checks=0, assignment=assignment_kind)
    participant = services.participant_arrive(study=study, pid=pid(1))
    locked, go = threading.Event(), threading.Event()
    errors: list[str] = []
    holder: list[int] = []  # the settings change's backend

    def more_ratings() -> None:
        try:
            with transaction.atomic():
                row = Study.objects.select_for_update().get(pk=study.pk)
                Study.objects.filter(pk=study.pk).update(ratings_per_sample=3)
                row.ratings_per_sample = 3
                holder.append(backend_pid())
                locked.set()
                go.wait(timeout=30)
                assignment.slots_create(row)
        except Exception as exc:  # collected and asserted on in the main thread
            errors.append(f"more ratings: {exc!r}")
        finally:
            locked.set()
            connections.close_all()

    def exclude() -> None:
        try:
            services.participant_exclude(
                rater=participant.rater, source=RaterExclusion.Source.MANUAL, reason="race"
            )
        except Exception as exc:  # collected and asserted on in the main thread
            errors.append(f"exclude: {exc!r}")
        finally:
            connections.close_all()

    first = threading.Thread(target=more_ratings)
    first.start()
    assert locked.wait(timeout=30)
    second = threading.Thread(target=exclude)
    second.start()
    waited = bool(holder) and a_backend_waits_on(holder[0])  # the exclusion, on the study row
    go.set()
    first.join(timeout=60)
    second.join(timeout=60)
    assert waited and errors == []
    if assignment_kind == "lists":
        counted = ListSlot.objects.filter(study=study, status__in=ListSlot.COUNTED)
        rotations = Counter(counted.values_list("list_id", "rotation"))
        assert set(rotations.values()) == {1}
        assert set(Counter(list_id for list_id, _ in rotations).values()) == {3}
    else:
        live = Slot.objects.filter(study=study).exclude(status__in=["void", "outdated"])
        per_sample = Counter(live.values_list("sample_id", flat=True))
        assert len(per_sample) == 24 and set(per_sample.values()) == {3}
