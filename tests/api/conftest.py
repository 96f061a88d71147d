"""Fixtures for the API tests: a small split with ratings, a study with a participant (whose
Prolific id must never leak), an excluded rater, an uploaded run and the four roles."""

from __future__ import annotations

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.factories import ambistory_setup

PROLIFIC_PID = "5f1e2d3c4b5a69788796a5b4"
PARTICIPANT_PSEUDONYM = "participant-7f3a"


@pytest.fixture
def small_split(db):
    """Two setups (12 samples) in ambistory/dev, each sample rated by five imported raters."""
    from annotations.importers import ambistory_import, parse_ambistory
    from annotations.models import Split

    samples = {**ambistory_setup(0), **ambistory_setup(6, homonym="bat")}
    ambistory_import(samples=parse_ambistory(samples), split="dev")
    return Split.objects.get(dataset__name="ambistory", name="dev")


@pytest.fixture
def study(small_split, researcher):
    from annotations.models import Sample
    from studies.models import Study

    study = Study.objects.create(
        slug="pilot",
        title="Pilot",
        completion_code="C0MPL3T3",
        screenout_code="SCR33N",
        samples_per_participant=2,
        ratings_per_sample=1,
        attention_checks_per_batch=0,
        created_by=researcher,
    )
    study.samples.set(Sample.objects.filter(split=small_split))
    return study


@pytest.fixture
def participant(study):
    """A study participant with one rating of the first sample."""
    from annotations.models import Rater, Rating
    from studies.models import Participant

    rater = Rater.objects.create(kind=Rater.Kind.PARTICIPANT, pseudonym=PARTICIPANT_PSEUDONYM)
    person = Participant.objects.create(
        study=study, rater=rater, prolific_pid=PROLIFIC_PID, prolific_session_id="sess-1"
    )
    Rating.objects.create(sample=study.samples.order_by("position").first(), rater=rater, score=2)
    return person


@pytest.fixture
def excluded_rater(small_split, researcher):
    """The third imported rater of the split, excluded for a failed attention check."""
    from annotations.models import Rater
    from annotations.services import rater_exclude

    rater = Rater.objects.filter(kind=Rater.Kind.IMPORTED).order_by("id")[2]
    rater_exclude(rater=rater, source="attention_check", reason="failed check", by=researcher)
    return rater


def prediction_lines(split, value: str = "3.5") -> list[str]:
    ids = split.samples.order_by("position").values_list("dataset_id", flat=True)
    return [f'{{"id": "{key}", "prediction": {value}}}\n' for key in ids]


@pytest.fixture
def uploaded_run(small_split, researcher):
    from predictions.io.importers import predictions_import

    return predictions_import(
        split=small_split,
        name="uploaded",
        lines=prediction_lines(small_split),
        created_by=researcher,
    )


@pytest.fixture
def token(researcher):
    return Token.objects.create(user=researcher)


@pytest.fixture
def api(token):
    """The researcher, authenticated with an API token (no session)."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


@pytest.fixture
def annotator(participant):
    """An anonymous client whose session holds a study participant (as the study pages do)."""
    client = APIClient()
    session = client.session
    session[f"study_participant:{participant.study_id}"] = participant.pk
    session.save()
    return client


@pytest.fixture
def outsider_api(outsider):
    client = APIClient()
    client.force_login(outsider)
    return client


@pytest.fixture
def anonymous():
    return APIClient()


@pytest.fixture
def non_researchers(annotator, outsider_api, anonymous):
    """(name, client, expected status) for every role that must get nothing."""
    return [
        ("annotator", annotator, 401),
        ("outsider", outsider_api, 403),
        ("anonymous", anonymous, 401),
    ]


LEAKS = ('"score"', '"mean"', '"prediction"', '"label"', '"choices"', "scores", PROLIFIC_PID)


def assert_refused(response, status: int) -> None:
    """Refused with ``status`` and nothing in the body but the reason."""
    assert response.status_code == status, response.content[:300]
    body = b"".join(response.streaming_content) if response.streaming else response.content
    text = body.decode()
    for leak in LEAKS:
        assert leak not in text
    assert set(response.json()) == {"detail"}


class FixedBackend:
    """A registered backend for run creation tests (predicts 3 for everything)."""

    name = "fixed"

    def __init__(self, **params):
        unknown = set(params) - {"value"}
        if unknown:
            raise TypeError(f"unexpected parameters: {sorted(unknown)}")


@pytest.fixture
def fixed_backend(settings):
    settings.AMBISITE_BACKENDS = {"fixed": "tests.api.conftest.FixedBackend"}
    return "fixed"
