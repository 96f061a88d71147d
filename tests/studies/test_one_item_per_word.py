"""RAW-C's design in the assignment: a relatedness study's batch never holds two pairs of one
word (``Study.one_item_per_word``, ``assignment.batch_unit``), enforced by the one function that
picks a batch and by the database (``UNIQUE(participant, word)``), also under concurrency."""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from django.db import IntegrityError, connection, connections, transaction

from annotations.models import Rating, TaskKind
from studies import services
from studies.assignment import batch_problem
from studies.models import Participant, Slot, Study

from .helpers import open_study, pid, qualify, rate_all
from .kinds_helpers import rawc_samples


def _rawc_study(words: int, *, per_participant: int, ratings: int, slug: str = "rawc") -> Study:
    samples = rawc_samples(words * 6, per_word=6)
    assert len({s.story.setup.homonym_id for s in samples}) == words
    study = services.study_create(
        title="RAW-C",
        slug=slug,
        task_kind=TaskKind.RELATEDNESS,
        samples=samples,
        ratings_per_sample=ratings,
        samples_per_participant=per_participant,
        completion_code="DONE1234",
        screenout_code="OUT98765",
    )
    return services.study_open(study=study)


def _words_per_batch(study: Study) -> Counter:
    """(participant, word) -> how many of the participant's slots are pairs of that word, read
    from the samples (not from ``Slot.word``, the column under test)."""
    rows = Slot.objects.filter(study=study, participant__isnull=False).values_list(
        "participant_id", "sample__story__setup__homonym_id"
    )
    return Counter(rows)


@pytest.mark.django_db
def test_a_relatedness_study_gives_each_participant_one_pair_per_word():
    study = _rawc_study(4, per_participant=4, ratings=2)
    assert study.one_item_per_word
    participants = [services.participant_arrive(study=study, pid=pid(n)) for n in range(12)]
    for participant in participants:
        qualify(participant)
        rate_all(participant)
    assert max(_words_per_batch(study).values()) == 1
    ratings = Rating.objects.valid().filter(rater__participant__study=study)
    assert Counter(Counter(ratings.values_list("sample_id", flat=True)).values()) == {2: 24}
    with pytest.raises(services.StudyFull):  # 24 pairs x 2 ratings / 4 per batch = 12
        services.participant_arrive(study=study, pid=pid(99))


@pytest.mark.django_db
def test_a_plausibility_study_keeps_one_sample_per_setup_only():
    study = open_study(2, per_participant=2, ratings=1)
    assert not study.one_item_per_word
    assert not Slot.objects.filter(study=study, word__isnull=False).exists()


@pytest.mark.django_db
def test_opening_is_refused_when_there_are_fewer_words_than_pairs_per_batch():
    samples = rawc_samples(12, per_word=6)  # 2 words
    study = services.study_create(
        title="t", slug="t", task_kind=TaskKind.RELATEDNESS, samples=samples,
        samples_per_participant=3, completion_code="A", screenout_code="B",
    )  # fmt: skip
    assert batch_problem(study) == (
        "Each participant would need 3 samples from different words, but the study's "
        "samples come from only 2 words."
    )
    with pytest.raises(services.StudyError, match="different words"):
        services.study_open(study=study)
    study = services.study_update(study=study, one_item_per_word=False)  # a draft may
    assert batch_problem(study) is None


@pytest.mark.django_db
def test_one_item_per_word_is_fixed_once_the_study_is_opened():
    study = _rawc_study(2, per_participant=2, ratings=1)
    with pytest.raises(services.StudyError, match="only be changed while the study is a draft"):
        services.study_update(study=study, one_item_per_word=False)


@pytest.mark.django_db
def test_the_database_refuses_two_slots_of_one_word_for_a_participant():
    study = _rawc_study(2, per_participant=2, ratings=1)
    participant = services.participant_arrive(study=study, pid=pid(1))
    mine = Slot.objects.filter(participant=participant).first()
    other = Slot.objects.filter(study=study, status="free", word_id=mine.word_id).first()
    assert mine.word_id is not None and other.setup_id != mine.setup_id
    with pytest.raises(IntegrityError), transaction.atomic():
        Slot.objects.filter(pk=other.pk).update(
            status="reserved", participant=participant, position=50
        )


@pytest.mark.django_db
def test_replacement_places_keep_the_word():
    study = _rawc_study(3, per_participant=3, ratings=1)
    participant = services.participant_arrive(study=study, pid=pid(1))
    qualify(participant)
    rate_all(participant)
    services.participant_exclude(rater=participant.rater, source="manual", reason="test")
    fresh = Slot.objects.filter(study=study, number=2)
    assert fresh.count() == 3 and not fresh.filter(word__isnull=True).exists()
    assert {s.word_id for s in fresh} == {s.sample.story.setup.homonym_id for s in fresh}


THREADS = 20  # 16 batches: 8 words x 6 pairs x 2 ratings / 6 per batch


def _run(study: Study, n: int, barrier: threading.Barrier, outcomes: list) -> None:
    try:
        barrier.wait(timeout=60)
        try:
            participant = services.participant_arrive(study=study, pid=pid(n))
        except (services.StudyFull, services.StudyBusy):
            outcomes.append("no place")
            return
        qualify(participant)
        rate_all(participant)
        outcomes.append("finished")
    except Exception as exc:  # collected and asserted on in the main thread
        outcomes.append(f"{n}: {exc!r}")
    finally:
        connections.close_all()


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_concurrent_arrivals_never_get_a_word_twice_and_quotas_stay_exact():
    if connection.vendor != "postgresql":
        pytest.skip("row-lock concurrency needs PostgreSQL (CI runs it there)")
    study = _rawc_study(8, per_participant=6, ratings=2, slug="rawc-load")
    barrier = threading.Barrier(THREADS)
    outcomes: list[str] = []
    threads = [
        threading.Thread(target=_run, args=(study, n, barrier, outcomes)) for n in range(THREADS)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=170)
    assert Counter(outcomes) == {"finished": 16, "no place": 4}, outcomes
    assert max(_words_per_batch(study).values()) == 1  # no batch holds a word twice
    ratings = Rating.objects.valid().filter(rater__participant__study=study)
    assert ratings.count() == 16 * 6
    per_sample = Counter(ratings.values_list("sample_id", flat=True))
    assert len(per_sample) == 48 and set(per_sample.values()) == {2}  # quotas exact
    per_word = Counter(ratings.values_list("rater_id", "sample__story__setup__homonym_id"))
    assert max(per_word.values()) == 1
    assert not Slot.objects.filter(study=study).exclude(status="done").exists()
    assert Participant.objects.filter(study=study).count() == 16  # refused: nothing stored


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("rule", "assignment", "expected"),
    [
        ("", "samples", True),
        ("off", "samples", False),
        ("", "lists", True),  # a list then holds one sample per word
        ("on", "samples", True),
    ],
)
def test_the_study_form_sets_one_item_per_word(researcher, rule, assignment, expected):
    from studies.forms import StudyForm

    split = rawc_samples()[0].split
    data = {
        "title": "Pairs", "slug": "pairs", "task_kind": TaskKind.RELATEDNESS, "split": split.pk,
        "endings": "all", "ratings_per_sample": 2, "samples_per_participant": 2,
        "time_limit_minutes": 30, "completion_code": "C", "screenout_code": "S",
        "guidelines": "g", "word_rule": rule, "assignment": assignment,
    }  # fmt: skip
    form = StudyForm(data)
    assert form.is_valid(), form.errors
    assert form.settings()["one_item_per_word"] is expected
    if assignment == "samples":
        study = services.study_create(samples=form.samples(), by=researcher, **form.settings())
        assert study.one_item_per_word is expected
        opened = services.study_open(study=study)
        assert StudyForm(instance=opened).fields["word_rule"].disabled


@pytest.mark.django_db
def test_the_preview_shows_one_pair_per_word_as_a_participant_gets():
    from studies.selectors import preview_items

    study = _rawc_study(4, per_participant=4, ratings=1)
    words = [
        Slot.objects.filter(sample_id=item.sample_id).values_list(
            "sample__story__setup__homonym_id", flat=True
        )[0]
        for item in preview_items(study)
        if item.sample_id
    ]
    assert len(words) == 4 and len(set(words)) == 4
