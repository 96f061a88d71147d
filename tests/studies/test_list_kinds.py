"""Fixed lists (``studies.lists``) with the other features of a study: each task kind
(relatedness with RAW-C's one item per word and counterbalanced order, sense choice, use
pairs), bot checks and qualification on arrival, and the attention-check threshold's
exclusion giving the list place back whole."""

from __future__ import annotations

from collections import Counter

import pytest
from django.urls import reverse

from annotations.models import Rating, Split, TaskKind
from studies import services
from studies.list_design import ListFileError
from studies.lists import lists_upload, uses_lists
from studies.models import ListSlot, Participant, Slot, Study, StudyList, StudyListItem
from studies.qualification import participant_bots
from studies.selectors import batch_items

from .helpers import BOT_ANSWERS, pid, qualify, rate_all
from .kinds_helpers import fool_samples, rawc_samples

pytestmark = pytest.mark.django_db


def _list_study(kind: str, samples, *, per_participant: int = 4, ratings: int = 2) -> Study:
    """A list-design study as the form makes it: the kind's defaults (a relatedness study
    has one item per word, two catch trials, 50% and two bot checks)."""
    return services.study_create(
        title=f"{kind} lists",
        slug="lists",
        task_kind=kind,
        samples=samples,
        ratings_per_sample=ratings,
        samples_per_participant=per_participant,
        completion_code="DONE1234",
        screenout_code="OUT98765",
        assignment="lists",
    )


def _words(participant: Participant) -> list[int]:
    return list(
        Slot.objects.filter(participant=participant).values_list(
            "sample__story__setup__homonym_id", flat=True
        )
    )


def test_a_relatedness_list_study_opens_with_one_pair_per_word_in_each_list():
    study = _list_study(TaskKind.RELATEDNESS, rawc_samples(12, per_word=2))
    assert study.one_item_per_word  # the kind's default, which the form does not show
    services.study_open(study=study)
    for lst in StudyList.objects.filter(study=study):
        words = StudyListItem.objects.filter(list=lst).values_list(
            "sample__story__setup__homonym_id", flat=True
        )
        assert len(words) == len(set(words))
    participant = services.participant_arrive(study=Study.objects.get(pk=study.pk), pid=pid(1))
    words = _words(participant)
    assert len(words) == len(set(words)) == 4
    held = Slot.objects.filter(participant=participant)
    assert list(held.values_list("word_id", flat=True)) == words  # UNIQUE(participant, word)


def test_a_relatedness_list_is_rated_in_both_sentence_orders_equally_often():
    study = _list_study(TaskKind.RELATEDNESS, rawc_samples(12, per_word=2), ratings=2)
    study = services.study_open(study=study)
    for n in (1, 2):
        participant = services.participant_arrive(study=study, pid=pid(n))
        qualify(participant)
        rate_all(participant, check_score=None)
    first_list = set(
        StudyListItem.objects.filter(list__study=study, list__number=1).values_list(
            "sample_id", flat=True
        )
    )
    orders = Counter(
        Rating.objects.filter(sample_id__in=first_list).values_list("sample_id", "sentence_order")
    )
    assert set(orders) == {(s, o) for s in first_list for o in ("12", "21")}  # each once


def test_an_uploaded_list_with_two_pairs_of_one_word_is_refused_naming_the_line():
    study = _list_study(TaskKind.RELATEDNESS, rawc_samples(12, per_word=2))
    ids = list(study.samples.order_by("position").values_list("dataset_id", flat=True))
    # RAW-C's pairs come word by word: the first two pairs share a word
    with pytest.raises(ListFileError, match="line 2: list 2: .* second item of a word"):
        lists_upload(study=study, text=f"{ids[0]},{ids[2]}\n{ids[4]},{ids[1]},{ids[0]}\n")
    assert lists_upload(study=study, text=f"{ids[0]},{ids[2]}\n{ids[1]},{ids[3]}\n") == 2


def test_a_sense_choice_list_study_hands_out_whole_lists_and_takes_the_choices():
    study = _list_study(TaskKind.SENSE_CHOICE, fool_samples(), per_participant=2, ratings=1)
    study = services.study_open(study=study)
    participant = services.participant_arrive(study=study, pid=pid(1))
    qualify(participant)
    for item in batch_items(participant):
        services.item_save(
            participant=participant, position=item.position, answer=services.Answer(score=0)
        )
    place = ListSlot.objects.get(participant=participant)
    listed = set(StudyListItem.objects.filter(list=place.list).values_list("sample_id", flat=True))
    rated = set(Rating.objects.filter(rater=participant.rater).values_list("sample_id", flat=True))
    assert rated == listed and len(rated) == 2


def test_a_use_pair_study_cannot_be_assigned_by_lists():
    study = services.study_create(
        title="pairs", slug="pairs", task_kind=TaskKind.USE_PAIR, samples=[]
    )
    with pytest.raises(services.StudyError, match="grows by rounds"):
        services.study_update(study=study, assignment="lists")
    assert not uses_lists(study)


def test_the_form_refuses_lists_for_a_use_pair_study_naming_the_assignment(researcher_client):
    rawc_samples(4)  # a split exists; the kind check is the assignment's
    form = {
        "title": "Pairs",
        "slug": "pairs",
        "task_kind": TaskKind.USE_PAIR,
        "ratings_per_sample": 2,
        "samples_per_participant": 2,
        "time_limit_minutes": 45,
        "completion_code": "C0MPLETE",
        "screenout_code": "SCREEN00",
        "guidelines": "Rate.",
        "split": Split.objects.get().pk,
        "endings": "all",
        "assignment": "lists",
    }
    response = researcher_client.post(reverse("studies:create"), form)
    errors = response.context["form"].errors
    assert "grows by rounds" in " ".join(errors["assignment"])
    assert not Study.objects.filter(slug="pairs").exists()


def test_a_wrong_bot_answer_gives_the_whole_list_place_back():
    study = services.study_open(study=_list_study(TaskKind.RELATEDNESS, rawc_samples()))
    assert study.bot_checks == 2
    participant = services.participant_arrive(study=study, pid=pid(1))
    place = ListSlot.objects.get(participant=participant)
    drawn = participant_bots(participant)
    wrong = {d.key: next(o for o in d.options if o != d.question.answer) for d in drawn}
    answers = {q.pk: q.expected for q in study.check_questions.all()}
    assert not services.participant_qualify(
        participant=participant, answers=answers, bot_answers=wrong
    )
    place.refresh_from_db()
    assert place.status == ListSlot.Status.FREE and place.participant_id is None
    assert not Slot.objects.filter(participant=participant).exists()
    again = services.participant_arrive(study=study, pid=pid(2))
    assert ListSlot.objects.get(participant=again).pk == place.pk
    assert services.participant_qualify(participant=again, answers=answers, bot_answers=BOT_ANSWERS)


def test_the_attention_threshold_excludes_and_the_list_place_is_offered_again_whole():
    study = services.study_open(study=_list_study(TaskKind.RELATEDNESS, rawc_samples()))
    participant = services.participant_arrive(study=study, pid=pid(1))
    qualify(participant)
    place = ListSlot.objects.get(participant=participant)
    checks = {a.position: a.question for a in participant.attention_answers.all()}
    assert len(checks) == 2
    for item in batch_items(participant):
        question = checks.get(item.position)
        score = 2 if question is None else (question.expected + 2) % 5  # both catch trials wrong
        services.item_save(
            participant=participant, position=item.position, answer=services.Answer(score=score)
        )
    place.refresh_from_db()
    assert place.status == ListSlot.Status.VOID
    spare = ListSlot.objects.get(list=place.list, rotation=place.rotation, status="free")
    assert spare.number > place.number
    assert not Slot.objects.filter(participant=participant).exclude(status="void").exists()
    assert Rating.objects.valid().filter(rater=participant.rater).count() == 0


def test_the_ratings_exports_name_each_list_participants_group(researcher_client):
    import csv
    import io
    import json

    study = services.study_open(study=_list_study(TaskKind.RELATEDNESS, rawc_samples()))
    for n in (1, 2, 3):
        participant = services.participant_arrive(study=study, pid=pid(n))
        qualify(participant)
        rate_all(participant)
    groups = {
        p.rater.pseudonym: f"lists list {p.list_slot.list.number}"
        for p in Participant.objects.filter(study=study)
    }
    assert len(set(groups.values())) == 2  # two places of list 1, one of list 2
    query = {"study": study.slug}
    response = researcher_client.get("/api/v1/exports/ratings.csv", query)
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert len(rows) == 12 and {r["rater"]: r["group"] for r in rows} == groups
    response = researcher_client.get("/api/v1/exports/ratings.jsonl", query)
    lines = b"".join(response.streaming_content).decode().splitlines()
    assert {json.loads(x)["rater"]: json.loads(x)["group"] for x in lines} == groups
    per_sample = services.study_open(
        study=services.study_create(
            title="no lists", slug="no-lists", task_kind=TaskKind.RELATEDNESS,
            samples=list(study.samples.all()), ratings_per_sample=1, samples_per_participant=4,
        )
    )  # fmt: skip
    other = services.participant_arrive(study=per_sample, pid=pid(9))
    qualify(other)
    rate_all(other)
    response = researcher_client.get("/api/v1/exports/ratings.csv", {"study": "no-lists"})
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert rows and {r["group"] for r in rows} == {""}
