"""The word page's crowd studies: start a use-pair study, add a round (researchers only)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from studies import services
from studies.models import Slot, Study
from tests.studies.helpers import rate_all
from wug.models import CrowdStudy

from .crowd_helpers import arrive, small_word

pytestmark = pytest.mark.django_db

FORM = {
    "title": "Planes",
    "slug": "planes",
    "pairs_per_round": "6",
    "judgments_per_pair": "1",
    "pairs_per_participant": "3",
    "gold_pairs_total": "2",
    "gold_per_participant": "1",
}


def test_a_researcher_starts_a_use_pair_study_from_the_word_page(researcher_client):
    small_word()
    page = researcher_client.get("/wug/plane_test/").content.decode()
    assert 'id="crowd-form"' in page
    response = researcher_client.post("/wug/plane_test/crowd/", FORM)
    study = Study.objects.get(slug="planes")
    assert response.status_code == 302 and response.url == f"/studies/{study.pk}/"
    assert study.task_kind == "use_pair" and study.samples.count() == 6
    page = researcher_client.get("/wug/plane_test/").content.decode()
    assert 'data-study="planes"' in page and page.count('class="crowd-round"') == 1


def test_a_bad_form_or_a_taken_slug_starts_nothing(researcher_client):
    small_word()
    researcher_client.post("/wug/plane_test/crowd/", {**FORM, "pairs_per_round": "0"})
    assert not Study.objects.exists()
    researcher_client.post("/wug/plane_test/crowd/", FORM)
    response = researcher_client.post("/wug/plane_test/crowd/", FORM, follow=True)
    assert "exists already" in response.content.decode()
    assert Study.objects.count() == 1


def test_the_next_round_waits_for_the_open_judgments_then_comes(researcher_client):
    small_word()
    researcher_client.post("/wug/plane_test/crowd/", FORM)
    crowd = CrowdStudy.objects.get()
    study = services.study_open(study=crowd.study)
    response = researcher_client.post("/wug/plane_test/crowd/planes/round/", follow=True)
    assert "Round 1 still has 6 judgments" in response.content.decode()
    n = 1
    while Slot.objects.filter(study=study, status="free").exists():
        rate_all(arrive(study, n))
        n += 1
    response = researcher_client.post("/wug/plane_test/crowd/planes/round/", follow=True)
    assert "Round 2 is added" in response.content.decode()
    assert crowd.rounds.count() == 2


def test_outsiders_cannot_start_studies_or_rounds(client, outsider_client):
    small_word()
    for who in (client, outsider_client):
        assert who.post("/wug/plane_test/crowd/", FORM).status_code == 302
    assert not Study.objects.exists()


def test_the_commands_start_a_study_and_add_rounds():
    small_word()
    out = StringIO()
    call_command("wug_study", "planes", "plane_test", "--pairs-per-round", "4", stdout=out)
    assert "round 1 with 4 pairs" in out.getvalue()
    study = services.study_open(study=Study.objects.get(slug="planes"))
    assert study.samples_per_participant == 4  # a round of 4 pairs: 4 each, not 20
    with pytest.raises(CommandError, match="Round 1 still has 12 judgments"):
        call_command("wug_round", "planes", stdout=StringIO())
    with pytest.raises(CommandError, match="no such word 'nope'"):
        call_command("wug_study", "x", "nope", stdout=StringIO())


def test_the_study_pages_and_the_preview_show_a_use_pair_study(researcher_client):
    small_word()
    researcher_client.post("/wug/plane_test/crowd/", FORM)
    study = Study.objects.get(slug="planes")
    for url in (f"/studies/{study.pk}/", f"/studies/{study.pk}/edit/"):
        assert researcher_client.get(url).status_code == 200, url
    services.study_open(study=study)
    assert researcher_client.get(f"/studies/{study.pk}/").status_code == 200
    page = researcher_client.get(f"/studies/{study.pk}/preview/rate/0/").content.decode()
    assert page.count('class="use"') == 2 and page.count('<mark class="wug-target">plane<') == 2
