"""The activity registry (``studies.activities``): a study of an activity that only the
tests know runs through arrival, qualification, the activity's own page and the code page,
with no change to studies or writing, only one registration line."""

from __future__ import annotations

import pytest
from django.db import connection
from django.urls import reverse

from studies import activities, late, researcher_reads, selectors
from studies import services as study_services
from studies.models import Participant, Study
from tests.studies.helpers import pid
from tests.studies.tagging_activity import TAGGING, Tag
from tests.studies.test_participant_views import arrive, qualify_by_post


@pytest.fixture
def tagging(settings):
    settings.ROOT_URLCONF = "tests.studies.tagging_activity"
    with connection.schema_editor() as editor:
        editor.create_model(Tag)
    activities.register(TAGGING)  # the one registration line a new activity needs
    yield TAGGING
    activities.unregister(TAGGING.name)
    with connection.schema_editor() as editor:
        editor.delete_model(Tag)


def _tagging_study(per: int) -> Study:
    study = study_services.study_create(
        title="Tagging", slug="tag", samples=[], activity="tagging", samples_per_participant=per
    )
    return study_services.study_open(study=study)


@pytest.mark.django_db(transaction=True)
def test_a_registered_test_activity_runs_arrival_its_own_page_and_the_code_page(client, tagging):
    study = _tagging_study(per=2)
    arrive(client, study, pid(1))
    welcome = client.get(reverse("participate:welcome", args=[study.slug]))
    assert b"2 words" in welcome.content and b"to tag your words" in welcome.content
    qualify_by_post(client, study)
    page = client.get(reverse("participate:arrive", args=[study.slug]), follow=True)
    assert page.redirect_chain[-1][0] == reverse("tagging_page", args=[study.slug])
    assert b"Tag word 1 of 2" in page.content
    participant = Participant.objects.get()
    client.post(reverse("tagging_page", args=[study.slug]), {"word": "river"})
    assert selectors.answered_count(participant) == 1
    final = client.post(reverse("tagging_page", args=[study.slug]), {"word": "money"}, follow=True)
    assert final.redirect_chain[-1][0] == reverse("participate:done", args=[study.slug])
    assert study.completion_code.encode() in final.content
    participant.refresh_from_db()
    assert participant.status == Participant.Status.FINISHED
    assert not participant.slots.exists()  # studies reserved no samples for it
    assert late._late_texts(participant) == 0
    assert researcher_reads.participants_for(study).get().n_rated == 2


@pytest.mark.django_db(transaction=True)
def test_the_preview_of_a_test_activity_goes_to_its_own_preview_page(admin_client, tagging):
    study = _tagging_study(per=1)
    answers = {f"q{q.pk}": q.expected for q in study.check_questions.all()}
    url = reverse("studies:preview_qualification", args=[study.pk])
    response = admin_client.post(url, answers)
    assert response.status_code == 302
    assert response.url == reverse("tagging_page_preview", args=[study.pk])


def test_an_unregistered_activity_is_named_in_the_error():
    with pytest.raises(LookupError, match="'painting'"):
        activities.get("painting")


def test_the_site_registers_rating_and_both_writing_activities():
    assert {"rating", "sentences", "endings"} <= set(activities.names())
    assert activities.get("rating").reserves_batch
    assert not activities.get("sentences").reserves_batch
