"""An annotator session reaches only its own items: no researcher page, admin, API,
aggregate or other participant's answers."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from annotations.models import Rating
from studies.models import Participant

from .helpers import open_study, pid
from .test_participant_views import arrive, arrive_url, qualify_by_post

pytestmark = pytest.mark.django_db


@pytest.fixture
def study_with_two_annotators(client):
    study = open_study()
    arrive(client, study, pid(1))
    qualify_by_post(client, study)
    other = Client()
    arrive(other, study, pid(2))
    qualify_by_post(other, study)
    first = Participant.objects.get(prolific_pid=pid(1))
    second = Participant.objects.get(prolific_pid=pid(2))
    return study, client, other, first, second


def researcher_urls(study, participant):
    return [
        reverse("studies:list"),
        reverse("studies:create"),
        reverse("studies:detail", args=[study.pk]),
        reverse("studies:edit", args=[study.pk]),
        reverse("studies:export", args=[study.pk]),
        reverse("studies:close", args=[study.pk]),
        reverse("studies:feedback", args=[study.pk]),
        reverse("studies:preview", args=[study.pk]),
        reverse("studies:preview_qualification", args=[study.pk]),
        reverse("studies:preview_rate", args=[study.pk, 0]),
        reverse("studies:preview_done", args=[study.pk]),
        reverse("annotations:setup_list"),
        "/admin/",
        "/admin/studies/participant/",
        "/api/v1/",
        "/api/v1/studies/",
    ]


def test_an_annotator_session_cannot_reach_researcher_pages(study_with_two_annotators):
    study, client, _, first, _ = study_with_two_annotators
    for url in researcher_urls(study, first):
        response = client.get(url)
        assert response.status_code in (302, 401, 403, 404), url
        if response.status_code == 302:
            assert "login" in response["Location"], url


def test_an_annotator_session_cannot_post_researcher_actions(study_with_two_annotators):
    study, client, _, first, _ = study_with_two_annotators
    for url in (
        reverse("studies:action", args=[study.pk, "close"]),
        reverse("studies:toggle", args=[study.pk, first.pk]),
    ):
        response = client.post(url)
        assert response.status_code == 302 and "login" in response["Location"]
    study.refresh_from_db()
    assert study.status == "open"


def test_rating_pages_show_only_the_own_batch_and_no_aggregates(study_with_two_annotators):
    study, client, other, first, second = study_with_two_annotators
    mine = set(first.slots.values_list("sample__story__setup__homonym__form", flat=True))
    for pos in range(5):
        other.post(
            reverse("participate:rate", args=[study.slug, pos]),
            {"score": 5, "comment": "SECOND-PARTICIPANT-COMMENT"},
        )
    assert Rating.objects.filter(rater=second.rater).exists()
    page = client.get(reverse("participate:rate", args=[study.slug, 0])).content.decode()
    assert "SECOND-PARTICIPANT-COMMENT" not in page
    assert "checked" not in page  # the other participant's score is not shown as ours
    shown = [word for word in mine if f'id="focus-word">{word}<' in page]
    checks = first.attention_answers.filter(position=0).exists()
    assert shown or checks
    text = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", page)  # random letters
    for word in ("mean", "average", "SD", "stdev", "prediction", "model"):
        assert not re.search(rf"\b{word}\b", text), word


def test_a_participant_cannot_use_another_studys_session(study_with_two_annotators):
    study, client, _, _, _ = study_with_two_annotators
    second_study = open_study(4, slug="second", samples=None)
    response = client.get(reverse("participate:rate", args=[second_study.slug, 0]))
    assert response["Location"] == reverse("participate:arrive", args=[second_study.slug])


def test_a_draft_study_is_not_reachable_by_participants(client):
    from studies import services

    from .helpers import unrated_setups

    draft = services.study_create(title="d", slug="draft", samples=unrated_setups(4))
    assert client.get(arrive_url(draft.slug)).status_code == 404
