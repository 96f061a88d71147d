"""writing/researcher_views.py's setups page: one URL per study form; a refused form comes
back on the page with its reason, a created study opens its page."""

from __future__ import annotations

import pytest
from django.urls import reverse

from studies.models import Study
from tests.writing.helpers import writing_world
from writing.models import WrittenSetup

pytestmark = pytest.mark.django_db


def test_an_ending_study_is_created_from_the_ticked_setups_by_its_own_url(client, researcher):
    writing_world(researcher)
    client.force_login(researcher)
    written = WrittenSetup.objects.get()
    data = {"e-title": "Endings 2", "e-slug": "endings-2", "setup": [written.pk]}
    answer = client.post(reverse("writing:ending_study_create"), data)
    study = Study.objects.get(slug="endings-2")
    assert answer.status_code == 302 and answer["Location"] == reverse(
        "studies:detail", args=[study.pk]
    )
    assert study.activity == Study.Activity.ENDINGS
    assert set(study.ending_slots.values_list("written_id", flat=True)) == {written.pk}


def test_a_short_name_in_use_comes_back_on_the_rating_form_and_creates_nothing(client, researcher):
    world = writing_world(researcher)
    client.force_login(researcher)
    before = Study.objects.count()
    data = {"r-title": "Rate", "r-slug": world["ending_study"].slug, "r-split": "written"}
    page = client.post(reverse("writing:rating_study_create"), data)
    assert page.status_code == 200
    assert page.context["rating_form"].errors["slug"] == ["A study with this short name exists."]
    assert not page.context["ending_form"].is_bound
    assert Study.objects.count() == before
