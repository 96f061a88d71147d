"""RAW-C's counterbalanced sentence order: the rule (``studies.counterbalance``), the pages that
follow it, the rating that records it (``Rating.sentence_order``) and the exports that carry
it."""

from __future__ import annotations

import csv
import io
import json
import re
from collections import Counter, defaultdict

import pytest
from django.urls import reverse

from annotations.models import Rating, TaskKind
from annotations.rating_exports import iter_ratings_csv, iter_ratings_jsonl, ratings_for_export
from studies import services
from studies.counterbalance import sentence_order, shown
from studies.models import Slot
from studies.selectors import batch_items

from .helpers import open_study, pid, qualify, rate_all
from .kinds_helpers import rawc_samples


def test_the_order_alternates_with_the_slot_number_and_the_sample():
    orders = [sentence_order(pairs=True, number=n, sample_id=10) for n in (1, 2, 3, 4)]
    assert orders == ["21", "12", "21", "12"]
    assert sentence_order(pairs=True, number=1, sample_id=11) == "12"
    assert sentence_order(pairs=False, number=1, sample_id=10) == ""  # not a pair kind
    assert sentence_order(pairs=True, number=None, sample_id=None) == ""  # a check
    assert shown("a", "b", "21") == ("b", "a") and shown("a", "b", "12") == ("a", "b")


def _relatedness_study(ratings: int):
    samples = rawc_samples(24, per_word=6)  # 4 words x 6 pairs
    study = services.study_create(
        title="RAW-C", slug="rawc", task_kind=TaskKind.RELATEDNESS, samples=samples,
        ratings_per_sample=ratings, samples_per_participant=4, completion_code="A",
        screenout_code="B",
    )  # fmt: skip
    return services.study_open(study=study)


@pytest.mark.django_db
def test_every_pair_is_seen_in_both_orders_equally_often_and_each_rating_records_its_order():
    study = _relatedness_study(ratings=4)
    participants = [services.participant_arrive(study=study, pid=pid(n)) for n in range(24)]
    for participant in participants:
        qualify(participant)
        rate_all(participant)
    ratings = Rating.objects.filter(rater__participant__study=study)
    assert ratings.count() == 96
    per_sample: dict[int, Counter] = defaultdict(Counter)
    for rating in ratings:
        per_sample[rating.sample_id][rating.sentence_order] += 1
    assert all(c == {"12": 2, "21": 2} for c in per_sample.values())  # balanced per pair
    for slot in Slot.objects.filter(study=study).select_related("participant"):
        rating = ratings.get(rater_id=slot.participant.rater_id, sample_id=slot.sample_id)
        assert rating.sentence_order == sentence_order(
            pairs=True, number=slot.number, sample_id=slot.sample_id
        )
    per_participant = Counter(ratings.values_list("rater_id", "sentence_order"))
    mixed = {r for (r, order) in per_participant if order == "12"} & {
        r for (r, order) in per_participant if order == "21"
    }
    assert len(mixed) > len(participants) / 2  # most participants see both orders


def _walk_pages(client, study, n: int) -> set[str]:
    """One participant through the pages: each pair's page shows first the sentence its
    order puts first; returns the orders shown."""
    from .test_participant_views import arrive, moved_on, qualify_by_post

    assert moved_on(arrive(client, study, pid(n)))
    qualify_by_post(client, study)
    participant = study.participants.get(prolific_pid=pid(n))
    slots = {s.position: s for s in Slot.objects.filter(participant=participant)}
    checks = {a.position: a.question for a in participant.attention_answers.all()}
    seen = set()
    for position in sorted([*slots, *checks]):
        url = reverse("participate:rate", args=[study.slug, position])
        html = client.get(url).content.decode()
        if position in slots:
            slot = slots[position]
            setup = slot.sample.story.setup
            order = sentence_order(pairs=True, number=slot.number, sample_id=slot.sample_id)
            first, second = shown(setup.precontext, setup.sentence, order)
            words, others = (set(t.rstrip(".!?").split()) for t in (first, second))
            word = re.compile(rf"\b{max(sorted(words - others), key=len)}\b")
            one, two = html.index('id="sentence-1"'), html.index('id="sentence-2"')
            end = html.index("</ol>", two)
            assert word.search(html[one:two]) and not word.search(html[two:end])
            seen.add(order)
        score = checks[position].expected if position in checks else 2
        assert client.post(url, {"score": score, "comment": ""}).status_code == 303
    orders = Rating.objects.filter(rater=participant.rater).values_list("sentence_order", flat=True)
    assert sorted(orders) == sorted(
        sentence_order(pairs=True, number=s.number, sample_id=s.sample_id) for s in slots.values()
    )
    return seen


@pytest.mark.django_db
def test_the_rating_pages_show_each_pair_in_its_slots_order():
    from django.test import Client

    study = _relatedness_study(ratings=2)
    seen: set[str] = set()
    for n in range(6):  # until both orders were shown (a batch of 4 shows both 7 times in 8)
        seen |= _walk_pages(Client(), study, n)
        if seen == {"12", "21"}:
            break
    assert seen == {"12", "21"}


@pytest.mark.django_db
def test_a_resaved_pair_keeps_its_order_and_a_plausibility_rating_has_none():
    study = _relatedness_study(ratings=1)
    participant = services.participant_arrive(study=study, pid=pid(1))
    qualify(participant)
    checks = {a.position: a.question.expected for a in participant.attention_answers.all()}
    for item in batch_items(participant):
        answer = services.Answer(score=checks.get(item.position, 3))
        services.item_save(participant=participant, position=item.position, answer=answer)
        if item.sample_id is not None:
            break
    rating = Rating.objects.get(rater=participant.rater)
    again = services.Answer(score=1)
    services.item_save(participant=participant, position=item.position, answer=again)
    order = rating.sentence_order
    rating.refresh_from_db()
    assert rating.score == 1 and rating.sentence_order == order == item.sentence_order
    assert order in ("12", "21")
    plain = open_study(2, per_participant=2, ratings=1, slug="plain")
    other = services.participant_arrive(study=plain, pid=pid(2))
    qualify(other)
    rate_all(other)
    orders = Rating.objects.filter(rater=other.rater).values_list("sentence_order", flat=True)
    assert list(orders) == ["", ""]


@pytest.mark.django_db
def test_the_ratings_exports_carry_the_order():
    study = _relatedness_study(ratings=1)
    participant = services.participant_arrive(study=study, pid=pid(1))
    qualify(participant)
    rate_all(participant)
    ratings = ratings_for_export(Rating.objects.filter(rater=participant.rater))
    stored = dict(ratings.values_list("sample__dataset_id", "sentence_order"))
    rows = list(csv.DictReader(io.StringIO("".join(iter_ratings_csv(ratings)))))
    assert {row["id"]: row["sentence_order"] for row in rows} == stored
    lines = "".join(iter_ratings_jsonl(ratings)).splitlines()
    assert {json.loads(line)["id"]: json.loads(line)["sentence_order"] for line in lines} == stored
    assert set(stored.values()) <= {"12", "21"} and len(stored) == 4


@pytest.mark.django_db
def test_the_studys_long_format_export_carries_the_order(researcher_client):
    study = _relatedness_study(ratings=1)
    participant = services.participant_arrive(study=study, pid=pid(1))
    qualify(participant)
    rate_all(participant)
    response = researcher_client.get("/api/v1/exports/ratings.csv", {"study": study.slug})
    assert response.status_code == 200
    body = b"".join(response.streaming_content).decode()
    rows = list(csv.DictReader(io.StringIO(body)))
    stored = dict(
        Rating.objects.filter(rater=participant.rater).values_list(
            "sample__dataset_id", "sentence_order"
        )
    )
    assert len(rows) == 4 and {row["id"]: row["sentence_order"] for row in rows} == stored
    pseudonym = participant.rater.pseudonym
    api = researcher_client.get("/api/v1/ratings/", {"rater": pseudonym, "page_size": 50})
    assert api.status_code == 200, api.content
    listed = {r["dataset_id"]: r["sentence_order"] for r in api.json()["results"]}
    assert listed == stored  # the API's ratings list carries it too
