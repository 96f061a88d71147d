"""Django's admin shows participants by pseudonym only: no Prolific id (nor the session or
study id Prolific sent) on any list, change, history or delete page."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.test import Client
from django.urls import reverse

from annotations.models import Rater, Rating
from studies.models import AttentionAnswer, Participant, Slot

from .helpers import PID, open_study, qualify, rate_all

pytestmark = pytest.mark.django_db

SESSION_ID = "prolificsession0123456789"


@pytest.fixture
def superuser_client(django_user_model):
    user = django_user_model.objects.create_superuser("root", password="root-password-1")
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def participant():
    from studies import services

    study = open_study(4, per_participant=4, ratings=2, checks=1)
    participant = services.participant_arrive(
        study=study, pid=PID, study_id="studyid42", session_id=SESSION_ID
    )
    qualify(participant)
    rate_all(participant)
    return participant


def _admin_urls(model, obj) -> list[str]:
    opts = model._meta
    name = f"admin:{opts.app_label}_{opts.model_name}"
    return [
        reverse(f"{name}_changelist"),
        reverse(f"{name}_change", args=[obj.pk]),
        reverse(f"{name}_history", args=[obj.pk]),
        reverse(f"{name}_delete", args=[obj.pk]),
    ]


def test_no_admin_page_of_participants_ratings_or_slots_shows_a_prolific_id(
    superuser_client, participant
):
    objects = [
        participant,
        participant.rater,
        Rating.objects.filter(rater=participant.rater).first(),
        Slot.objects.filter(participant=participant).first(),
        AttentionAnswer.objects.filter(participant=participant).first(),
    ]
    pages = [url for obj in objects for url in _admin_urls(type(obj), obj)]
    for url in pages:
        response = superuser_client.get(url)
        assert response.status_code == 200, url
        text = response.content.decode()
        for secret in (PID, SESSION_ID, "studyid42"):
            assert secret not in text, (url, secret)
    change = superuser_client.get(_admin_urls(Participant, participant)[2]).content.decode()
    assert participant.rater.pseudonym in change


def test_the_admin_cannot_create_participants_or_edit_their_prolific_ids(
    superuser_client, participant
):
    opts = Participant._meta
    add = reverse(f"admin:{opts.app_label}_{opts.model_name}_add")
    assert superuser_client.get(add).status_code == 403
    model_admin = admin.site._registry[Participant]
    change = reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[participant.pk])
    form = superuser_client.get(change).context["adminform"].form
    assert not {"prolific_pid", "prolific_session_id", "resume_hash"} & set(form.fields)
    assert not model_admin.search_fields  # nobody looks a participant up by Prolific id here
    assert isinstance(participant.rater, Rater)
