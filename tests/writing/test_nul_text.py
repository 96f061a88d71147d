"""NUL in a writer's text or comment (and in the researchers' writing forms) is refused with
a page naming the field, and nothing of it is stored: PostgreSQL cannot hold it, so before
the request-body check each of these paths ended in a server error."""

from __future__ import annotations

import pytest
from django.urls import reverse

from studies.models import Participant, Study
from tests.studies.helpers import pid
from tests.studies.test_participant_views import arrive, qualify_by_post
from tests.writing.helpers import SENTENCES, make_pool, open_writing_study, writing_world
from writing.models import Draw, Ending, Sentence

pytestmark = pytest.mark.django_db


def assert_refused(response, field: str) -> None:
    assert response.status_code == 400
    text = response.content.decode()
    assert "NUL character" in text and f"&#x27;{field}&#x27;" in text


def test_a_sentence_holding_nul_is_refused_naming_the_field_and_not_stored(client):
    make_pool()
    study = open_writing_study(Study.Activity.SENTENCES, slug="w", per=5)
    arrive(client, study, pid(1))
    qualify_by_post(client, study)
    url = reverse("write:sentences", args=[study.slug])
    client.get(url)
    draw = Draw.objects.get(status="open")
    text = SENTENCES[draw.pair.homonym.form]
    assert_refused(client.post(url, {"draw": draw.pk, "text": text + "\x00"}), "text")
    assert not Sentence.objects.exists()
    assert client.post(url, {"draw": draw.pk, "text": text}).status_code == 303


@pytest.mark.parametrize("field", ["text", "comment"])
def test_an_ending_or_its_comment_holding_nul_is_refused_and_not_stored(client, researcher, field):
    world = writing_world(researcher)
    study = world["ending_study"]
    arrive(client, study, pid(3))
    qualify_by_post(client, study)
    url = reverse("write:endings", args=[study.slug])
    client.get(url)
    slot = Participant.objects.get(prolific_pid=pid(3)).ending_slots.get()
    data = {"slot": slot.pk, "text": "In the end it was all gone.", "comment": "fine"}
    before = Ending.objects.count()
    assert_refused(client.post(url, data | {field: data[field] + "\x00"}), field)
    assert Ending.objects.count() == before
    assert client.post(url, data).status_code == 303


def test_the_researchers_preview_and_flag_reason_refuse_nul(client, researcher):
    world = writing_world(researcher)
    client.force_login(researcher)
    preview = reverse("writing:preview", args=[world["ending_study"].pk])
    assert_refused(client.post(preview, {"text": "a\x00b"}), "text")
    flag = reverse("writing:pair_flag", args=[world["pair_pk"]])
    assert_refused(client.post(flag, {"reason": "\x00"}), "reason")
