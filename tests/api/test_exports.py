"""/api/v1/exports/: reference jsonl, AmbiStory JSON and ratings (CSV, jsonl), streamed."""

import csv
import io
import json

import pytest

from tests.api.conftest import PARTICIPANT_PSEUDONYM, PROLIFIC_PID, assert_refused
from tests.conftest import CONFORMANCE

pytestmark = pytest.mark.django_db

EXPORTS = (
    "/api/v1/exports/reference.jsonl?split=dev",
    "/api/v1/exports/ambistory.json?split=dev",
    "/api/v1/exports/ratings.csv",
    "/api/v1/exports/ratings.jsonl",
)


def streamed(response) -> bytes:
    assert response.status_code == 200, response.content
    assert response.streaming
    return b"".join(response.streaming_content)


def test_the_dev_reference_equals_the_official_solution_byte_for_byte(api, dev_split, dev_json):
    response = api.get("/api/v1/exports/reference.jsonl", {"split": "dev"})
    assert response["Content-Type"].startswith("application/jsonl")
    assert 'filename="dev_solution.jsonl"' in response["Content-Disposition"]
    assert streamed(response) == (CONFORMANCE / "dev_solution.jsonl").read_bytes()
    ambistory = json.loads(streamed(api.get("/api/v1/exports/ambistory.json", {"split": "dev"})))
    assert ambistory == dev_json


def test_a_client_asking_for_the_files_own_type_gets_the_file(api, small_split):
    response = api.get("/api/v1/exports/reference.jsonl?split=dev", HTTP_ACCEPT="application/jsonl")
    assert streamed(response).startswith(b'{"id": "0", "label": [1, 3, 4, 2, 5]}\n')


def test_it_answers_404_for_an_unknown_split_and_400_without_one(api, small_split):
    assert api.get("/api/v1/exports/reference.jsonl", {"split": "test"}).status_code == 404
    response = api.get("/api/v1/exports/ambistory.json")
    assert response.status_code == 400 and "split" in response.json()


def test_it_exports_ratings_in_long_format_as_jsonl(api, small_split, participant, excluded_rater):
    lines = streamed(api.get("/api/v1/exports/ratings.jsonl")).decode().splitlines()
    rows = [json.loads(line) for line in lines]
    assert len(rows) == 12 * 4 + 1  # one imported rater excluded, one participant rating
    assert rows[0] == {**rows[0], "dataset": "ambistory", "split": "dev", "id": "0", "score": 1}
    assert {r["rater"] for r in rows if r["rater_kind"] == "participant"} == {PARTICIPANT_PSEUDONYM}
    assert not any(r["rater_excluded"] for r in rows)
    everything = streamed(api.get("/api/v1/exports/ratings.jsonl", {"include_excluded": "true"}))
    assert len(everything.splitlines()) == 61
    assert PROLIFIC_PID.encode() not in everything


def test_it_exports_ratings_as_csv_with_a_header(api, small_split, participant):
    response = api.get("/api/v1/exports/ratings.csv", {"split": "dev"})
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(streamed(response).decode())))
    assert len(rows) == 61
    assert rows[0]["rater_excluded"] == "false" and rows[0]["score"] == "1"
    assert api.get("/api/v1/exports/ratings.csv", {"split": "train"}).status_code == 404


def test_it_gives_non_researchers_nothing(non_researchers, small_split, participant):
    for _, client, status in non_researchers:
        for url in EXPORTS:
            assert_refused(client.get(url), status)
