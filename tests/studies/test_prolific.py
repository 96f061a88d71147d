"""Optional Prolific verification of an arrival (studies.prolific), against a local fake of
Prolific's submissions endpoint (tests/prolific_server.py)."""

from __future__ import annotations

import html

import pytest
from django.test import Client

from studies import prolific
from studies.models import Participant
from tests.prolific_server import ProlificServer, submission

from .helpers import PID, open_study, pid
from .test_participant_views import arrive, moved_on

pytestmark = pytest.mark.django_db

TOKEN = "test-prolific-token"


@pytest.fixture
def fake(settings):
    """The fake knows one active submission: ``PID`` in Prolific study st1, session se1."""
    with ProlificServer({"se1": submission("se1", PID, "st1")}) as server:
        settings.PROLIFIC_API_TOKEN = TOKEN
        settings.PROLIFIC_API_URL = server.base_url
        settings.PROLIFIC_API_TIMEOUT = 0.5
        yield server


def text_of(response) -> str:
    return html.unescape(response.content.decode())


def test_a_pid_prolific_knows_for_this_study_is_let_in(fake):
    study = open_study(prolific_study_id="st1")
    response = arrive(Client(), study, PID)
    assert moved_on(response)
    assert Participant.objects.filter(prolific_pid=PID).exists()
    (seen,) = fake.requests
    assert seen.path == "/api/v1/submissions/se1/"
    assert seen.headers["Authorization"] == f"Token {TOKEN}"


def test_a_pid_prolific_does_not_know_is_refused_and_nothing_is_stored(fake):
    study = open_study(prolific_study_id="st1")
    response = arrive(Client(), study, pid(7))  # made up, with a real participant's session
    assert response.status_code == 400
    assert "Prolific says this submission is not this participant's. (PROLIFIC_PID)" in text_of(
        response
    )
    assert not Participant.objects.exists()


def test_a_session_prolific_does_not_know_is_refused(fake):
    fake.submissions.clear()
    study = open_study(prolific_study_id="st1")
    response = arrive(Client(), study, PID)
    assert response.status_code == 400
    assert "Prolific knows no submission with this link's SESSION_ID" in text_of(response)
    assert not Participant.objects.exists()


def test_a_returned_submission_or_another_study_is_refused(fake):
    study = open_study(prolific_study_id="st1")
    fake.submissions["se1"] = submission("se1", PID, "st1", status="RETURNED")
    assert "this submission is returned, not active" in text_of(arrive(Client(), study, PID))
    fake.submissions["se1"] = submission("se1", PID, "other-study")
    assert "belongs to another study. (STUDY_ID)" in text_of(arrive(Client(), study, PID))
    assert not Participant.objects.exists()


def test_prolific_not_answering_in_time_is_explained_and_stores_nothing(fake, settings):
    settings.PROLIFIC_API_TIMEOUT = 0.2
    fake.delay = 1.0
    study = open_study(prolific_study_id="st1")
    response = arrive(Client(), study, PID)
    assert response.status_code == 200
    assert "Prolific did not answer in time" in text_of(response)
    assert not Participant.objects.exists()


@pytest.mark.parametrize(
    ("status", "says"),
    [(500, "Prolific answered 500"), (401, "Prolific refused this site's API token")],
)
def test_an_error_from_prolific_is_explained(fake, status, says):
    fake.status = status
    study = open_study(prolific_study_id="st1")
    assert says in text_of(arrive(Client(), study, PID))
    assert not Participant.objects.exists()


def test_without_a_token_or_a_prolific_study_id_nothing_is_asked(fake, settings):
    unchecked = open_study(slug="no-id")  # no Prolific study id: not checked
    assert moved_on(arrive(Client(), unchecked, pid(7)))
    settings.PROLIFIC_API_TOKEN = ""  # the default: off
    study = open_study(slug="no-token", prolific_study_id="st1")
    assert moved_on(arrive(Client(), study, pid(8)))
    assert fake.requests == []


def test_a_malformed_link_never_reaches_prolific(fake):
    study = open_study(prolific_study_id="st1")
    with pytest.raises(prolific.ProlificRefused) as refused:
        prolific.submission_check(study=study, pid=PID, study_id="st1", session_id="")
    assert refused.value.field == "SESSION_ID"
    with pytest.raises(prolific.InvalidArrival):
        prolific.submission_check(study=study, pid="x<y", study_id="st1", session_id="se1")
    assert fake.requests == []


def test_submission_problem_reads_both_spellings_of_the_participant():
    confirmed = {"participant_id": PID, "study_id": "st1", "status": "ACTIVE"}
    assert prolific.submission_problem(confirmed, pid=PID, prolific_study_id="st1") is None
    assert prolific.submission_problem(None, pid=PID, prolific_study_id="st1")[0] == "SESSION_ID"
