"""/api/v1/studies/: read-only, with open/pause/close actions through the study services."""

import pytest

from tests.api.conftest import PROLIFIC_PID, assert_refused

pytestmark = pytest.mark.django_db


def test_it_lists_studies_with_counts_and_no_prolific_ids(api, participant):
    response = api.get("/api/v1/studies/")
    assert response.status_code == 200
    (study,) = response.json()["results"]
    assert study["slug"] == "pilot" and study["status"] == "draft"
    assert study["n_samples"] == 12 and study["n_participants"] == 1
    assert PROLIFIC_PID not in response.content.decode()
    assert api.get("/api/v1/studies/pilot/").json()["title"] == "Pilot"
    assert api.get("/api/v1/studies/", {"status": "open"}).json()["count"] == 0
    assert api.get("/api/v1/studies/nope/").status_code == 404


def test_it_shows_the_researcher_contact(api, study):
    study.contact = "ambistory@example.org"
    study.save(update_fields=["contact"])
    assert api.get("/api/v1/studies/pilot/").json()["contact"] == "ambistory@example.org"
    assert api.get("/api/v1/studies/").json()["results"][0]["contact"] == "ambistory@example.org"


def test_it_opens_pauses_and_closes_a_study(api, study):
    opened = api.post("/api/v1/studies/pilot/open/")
    assert opened.status_code == 200, opened.content
    assert opened.json()["status"] == "open"
    assert api.post("/api/v1/studies/pilot/pause/").json()["status"] == "paused"
    assert api.post("/api/v1/studies/pilot/close/").json()["status"] == "closed"
    study.refresh_from_db()
    assert study.status == "closed"


def test_it_answers_409_with_the_reason_for_a_refused_transition(api, study):
    api.post("/api/v1/studies/pilot/close/")
    response = api.post("/api/v1/studies/pilot/open/")
    assert response.status_code == 409
    assert "closed" in response.json()["detail"]
    assert api.post("/api/v1/studies/pilot/pause/").status_code == 409


def test_it_gives_non_researchers_nothing(non_researchers, participant):
    for _, client, status in non_researchers:
        assert_refused(client.get("/api/v1/studies/"), status)
        assert_refused(client.get("/api/v1/studies/pilot/"), status)
        for verb in ("open", "pause", "close"):
            assert_refused(client.post(f"/api/v1/studies/pilot/{verb}/"), status)
    participant.study.refresh_from_db()
    assert participant.study.status == "draft"
