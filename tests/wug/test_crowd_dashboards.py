"""The site's other pages serve a use-pair study: the dashboards, the study pages and exports
(a kind they do not special-case must not break them)."""

from __future__ import annotations

import json

import pytest
from django.db.models import Q

from studies import services
from studies.models import Slot
from tests.studies.helpers import rate_all
from wug.crowd import crowd_study_create
from wug.models import UsePair

from .crowd_helpers import arrive, small_word

pytestmark = pytest.mark.django_db


def test_the_dashboards_and_study_pages_serve_a_judged_use_pair_study(researcher_client):
    word = small_word()
    crowd = crowd_study_create(
        words=[word], title="Planes", slug="planes", pairs_per_round=4,
        judgments_per_pair=2, pairs_per_participant=4, gold_pairs_total=1,
    )  # fmt: skip
    study = services.study_open(study=crowd.study)
    n = 1
    while Slot.objects.filter(study=study, status="free").exists():
        rate_all(arrive(study, n))
        n += 1
    pk, setup = study.pk, UsePair.objects.first().sample.story.setup_id
    urls = [
        "/dashboards/",
        f"/dashboards/?study={pk}",
        f"/dashboards/items/?study={pk}",
        f"/dashboards/annotators/?study={pk}",
        f"/dashboards/kinds/?study={pk}",
        "/dashboards/kinds/",
        f"/dashboards/setups/{setup}/",
        f"/studies/{pk}/",
        f"/studies/{pk}/export.json",
        f"/studies/{pk}/feedback/",
    ]
    for url in urls:
        response = researcher_client.get(url)
        assert response.status_code == 200, (url, response.status_code)
    assert not Slot.objects.filter(Q(study=study) & ~Q(status="done")).exists()


def test_the_api_and_the_jsonl_export_include_the_crowds_judgments(researcher_client):
    word = small_word()
    crowd = crowd_study_create(
        words=[word], title="Planes", slug="planes", pairs_per_round=4,
        judgments_per_pair=1, pairs_per_participant=4, gold_pairs_total=1,
    )  # fmt: skip
    study = services.study_open(study=crowd.study)
    participant = arrive(study, 1)
    rate_all(participant)
    figures = researcher_client.get("/api/v1/wug/words/plane_test/").json()
    assert figures["judgments"] == 4 and figures["annotators"] == 1
    lines = researcher_client.get("/api/v1/wug/exports/judgments.jsonl?word=plane_test")
    rows = [json.loads(line) for line in b"".join(lines.streaming_content).splitlines()]
    assert len(rows) == 4
    assert {r["annotator"] for r in rows} == {participant.rater.pseudonym}
    assert {(r["judgment"], r["round"]) for r in rows} == {("3.0", "1")}
