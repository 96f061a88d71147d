"""One study's ratings in long format (jsonl and CSV): one row per rating of the study's own
participants, by pseudonym (never a Prolific id), with the item, score, time, the text
versions it was given on and the comment; linked from the study page."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.urls import reverse

from annotations.models import Rating
from tests.api.conftest import PARTICIPANT_PSEUDONYM, PROLIFIC_PID
from tests.api.test_exports import streamed

pytestmark = pytest.mark.django_db

COLUMNS = ["rater", "id", "sample_id", "score", "created_at", "setup_version", "story_version"]


@pytest.fixture
def commented(participant):
    rating = Rating.objects.get(rater=participant.rater)
    rating.comment = '=HYPERLINK("x"), a "quoted" comment'
    rating.save()
    return rating


def test_the_jsonl_holds_only_the_studys_ratings_by_pseudonym(api, commented, study):
    body = streamed(api.get("/api/v1/exports/ratings.jsonl", {"study": study.slug}))
    rows = [json.loads(line) for line in body.decode().splitlines()]
    assert len(rows) == 1  # the 60 imported ratings of the same samples are not the study's
    row = rows[0]
    sample = commented.sample
    assert {k: row[k] for k in COLUMNS} == {
        "rater": PARTICIPANT_PSEUDONYM,
        "id": sample.dataset_id,
        "sample_id": sample.sample_id,
        "score": 2,
        "created_at": commented.created_at.isoformat(),
        "setup_version": 1,
        "story_version": 1,
    }
    assert row["comment"] == '=HYPERLINK("x"), a "quoted" comment'
    assert row["rater_kind"] == "participant" and row["outdated"] is False
    assert PROLIFIC_PID.encode() not in body


def test_the_csv_has_the_same_row_under_a_header_and_is_spreadsheet_safe(api, commented, study):
    response = api.get("/api/v1/exports/ratings.csv", {"study": study.slug})
    assert response["Content-Disposition"] == 'attachment; filename="ratings_pilot.csv"'
    body = streamed(response).decode()
    rows = list(csv.DictReader(io.StringIO(body)))
    assert len(rows) == 1 and rows[0]["rater"] == PARTICIPANT_PSEUDONYM
    assert rows[0]["score"] == "2" and rows[0]["id"] == commented.sample.dataset_id
    assert rows[0]["comment"] == "'" + commented.comment  # no formula in a spreadsheet
    assert PROLIFIC_PID not in body


def test_the_study_page_links_both_formats(client, researcher, study, participant):
    client.force_login(researcher)
    html = client.get(reverse("studies:detail", args=[study.pk])).content.decode()
    assert f'href="/api/v1/exports/ratings.csv?study={study.slug}"' in html
    assert f'href="/api/v1/exports/ratings.jsonl?study={study.slug}"' in html
    response = client.get(f"/api/v1/exports/ratings.csv?study={study.slug}")  # by session
    assert response.status_code == 200 and len(streamed(response).splitlines()) == 2


def test_an_unknown_study_is_404_and_an_unknown_parameter_400(api, study):
    response = api.get("/api/v1/exports/ratings.jsonl", {"study": "nosuch"})
    assert response.status_code == 404 and "nosuch" in response.json()["detail"]
    response = api.get("/api/v1/exports/ratings.jsonl", {"studdy": study.slug})
    assert response.status_code == 400 and "studdy" in response.json()
