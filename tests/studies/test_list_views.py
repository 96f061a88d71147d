"""The list design on the researcher's pages: the study form's option, the study page's lists
and fill state, making and uploading lists (``studies.list_views``)."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotations.models import Split
from studies.models import ListDesign, StudyList

from .helpers import pid, qualify, rate_all, unrated_setups

pytestmark = pytest.mark.django_db


def create(client, **extra):
    unrated_setups(4)  # 24 samples, 6 per setup
    form = {
        "title": "Lists pilot",
        "slug": "lists-pilot",
        "ratings_per_sample": 2,
        "samples_per_participant": 4,
        "attention_checks_per_batch": 0,
        "time_limit_minutes": 45,
        "completion_code": "C0MPLETE",
        "screenout_code": "SCREEN00",
        "guidelines": "Rate.",
        "split": Split.objects.get(name="study").pk,
        "endings": "all",
        "assignment": "lists",
        "latin_square": "on",
        **extra,
    }
    return client.post(reverse("studies:create"), form)


def test_the_form_creates_a_list_study_and_its_page_shows_the_lists_filling(researcher_client):
    from studies import services
    from studies.models import Study

    assert "Fixed lists" in researcher_client.get(reverse("studies:create")).content.decode()
    create(researcher_client)
    study = Study.objects.get(slug="lists-pilot")
    assert ListDesign.objects.get(study=study).latin_square
    page = researcher_client.get(reverse("studies:detail", args=[study.pk])).content.decode()
    assert 'id="lists-none"' in page and "Upload lists" in page
    researcher_client.post(reverse("studies:action", args=[study.pk, "open"]))
    assert StudyList.objects.filter(study=study).count() == 6  # 24 samples, 4 per list
    p = services.participant_arrive(study=Study.objects.get(pk=study.pk), pid=pid(1))
    qualify(p)
    rate_all(p)
    services.participant_arrive(study=Study.objects.get(pk=study.pk), pid=pid(2))
    page = researcher_client.get(reverse("studies:detail", args=[study.pk])).content.decode()
    assert "<strong>1</strong> of 12 places finished" in page
    assert '<tr data-list="1"><td>1</td><td class="num">4</td><td class="num">1 / 2</td>' in page
    assert "Upload lists" not in page  # fixed once open
    assert f'<small class="list-place">list 1, order {p.list_slot.rotation + 1}</small>' in page


def test_lists_and_adaptive_allocation_are_refused_together_on_the_form(researcher_client):
    page = create(researcher_client, adaptive="on").content.decode()
    assert "Fixed lists cannot be combined with adaptive allocation." in page


def test_an_uploaded_file_replaces_the_lists_and_a_bad_one_says_which_line(researcher_client):
    from studies.models import Study

    create(researcher_client)
    study = Study.objects.get(slug="lists-pilot")
    ids = list(study.samples.order_by("position").values_list("dataset_id", flat=True))
    url = reverse("studies:lists_upload", args=[study.pk])
    good = SimpleUploadedFile("l.csv", f"{ids[0]},{ids[6]}\n{ids[12]},{ids[18]}\n".encode())
    page = researcher_client.post(url, {"file": good}, follow=True).content.decode()
    assert "2 lists uploaded from l.csv" in page
    bad = SimpleUploadedFile("l.csv", f"{ids[0]}\n{ids[1]},{ids[2]}\n".encode())
    page = researcher_client.post(url, {"file": bad}, follow=True).content.decode()
    assert "Lists not uploaded: l.csv: line 2: list 2:" in page
    assert StudyList.objects.filter(study=study).count() == 2  # unchanged
    researcher_client.post(reverse("studies:lists_make", args=[study.pk]))
    assert StudyList.objects.filter(study=study).count() == 6


def test_the_downloaded_lists_upload_again_as_the_same_lists(researcher_client):
    from studies import lists as study_lists
    from studies.models import Study, StudyListItem

    create(researcher_client)
    study = Study.objects.get(slug="lists-pilot")
    researcher_client.post(reverse("studies:lists_make", args=[study.pk]))

    def current():
        items = StudyListItem.objects.filter(list__study=study).order_by("list__number", "position")
        return list(items.values_list("list__number", "sample_id"))

    made = current()
    response = researcher_client.get(reverse("studies:lists_download", args=[study.pk]))
    assert response["Content-Disposition"] == 'attachment; filename="lists-pilot-lists.csv"'
    text = response.content.decode()
    assert len(text.splitlines()) == 6 and all(
        len(line.split(",")) == 4 for line in text.splitlines()
    )
    study_lists.lists_upload(study=study, text=text, name="lists-pilot-lists.csv")
    assert current() == made
