"""Include/exclude on the study page (issue 28): a confirmation page first, a reason that is
recorded, a stale second click that changes nothing, and the notice kept in view."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotations.models import RaterExclusion
from studies import services
from studies.models import Slot

from .helpers import open_study, pid, qualify, rate_all

pytestmark = pytest.mark.django_db


@pytest.fixture
def rated():
    study = open_study(4, per_participant=4, ratings=2)
    participant = services.participant_arrive(study=study, pid=pid(1))
    qualify(participant)
    rate_all(participant)
    return study, participant


def _url(study, participant) -> str:
    return reverse("studies:toggle", args=[study.pk, participant.pk])


def test_the_study_page_links_to_a_confirmation_instead_of_acting(researcher_client, rated):
    study, participant = rated
    page = researcher_client.get(reverse("studies:detail", args=[study.pk])).content.decode()
    assert f'href="{_url(study, participant)}">Exclude…</a>' in page
    confirm = researcher_client.get(_url(study, participant))
    text = confirm.content.decode()
    assert confirm.status_code == 200
    assert f"Exclude {participant.rater.pseudonym}?" in text
    assert 'id="n-ratings">4<' in text and 'name="reason"' in text
    assert 'name="confirm" value="exclude"' in text
    assert not RaterExclusion.objects.exists()  # a GET changes nothing


def test_an_exclusion_without_a_reason_is_refused_and_changes_nothing(researcher_client, rated):
    study, participant = rated
    for data in ({}, {"confirm": "exclude"}, {"confirm": "exclude", "reason": "   "}):
        response = researcher_client.post(_url(study, participant), data)
        assert response.status_code == 400
        assert 'id="exclusion-error"' in response.content.decode()
    assert not RaterExclusion.objects.exists()
    assert Slot.objects.filter(study=study, status="void").count() == 0


def test_the_reason_is_recorded_for_excluding_and_for_including_again(
    researcher_client, researcher, rated
):
    study, participant = rated
    response = researcher_client.post(
        _url(study, participant), {"confirm": "exclude", "reason": "all 3s in 20 seconds"}
    )
    detail = reverse("studies:detail", args=[study.pk])
    assert response.status_code == 302
    assert response["Location"] == f"{detail}#participant-{participant.pk}"
    exclusion = RaterExclusion.objects.get(rater=participant.rater)
    assert exclusion.reason == "all 3s in 20 seconds" and exclusion.created_by == researcher
    assert exclusion.source == RaterExclusion.Source.MANUAL and exclusion.revoked_at is None
    assert Slot.objects.filter(study=study, status="void").count() == 4
    page = researcher_client.get(detail).content.decode()
    assert f"{participant.rater.pseudonym} is now excluded." in page  # the notice
    assert "excluded</strong>: all 3s in 20 seconds" in page
    researcher_client.post(
        _url(study, participant), {"confirm": "include", "reason": "checked: a real person"}
    )
    exclusion.refresh_from_db()
    assert exclusion.revoked_at is not None and exclusion.revoked_by == researcher
    assert exclusion.revoke_reason == "checked: a real person"
    assert Slot.objects.filter(study=study, status="void").count() == 0


def test_a_second_click_from_a_stale_page_does_not_undo_the_first(researcher_client, rated):
    study, participant = rated
    data = {"confirm": "exclude", "reason": "speeding"}
    researcher_client.post(_url(study, participant), data)
    again = researcher_client.post(_url(study, participant), data)
    assert again.status_code == 400 and "already excluded" in again.content.decode()
    assert RaterExclusion.objects.filter(rater=participant.rater, revoked_at=None).count() == 1


def test_a_participant_of_another_study_is_not_found(researcher_client, rated):
    study, participant = rated
    other = services.study_create(title="Other", slug="other", samples=[])
    url = reverse("studies:toggle", args=[other.pk, participant.pk])
    assert researcher_client.get(url).status_code == 404


def test_including_again_mid_batch_gives_back_the_places_the_participant_still_holds():
    study = open_study(4, per_participant=4, ratings=1, checks=0)
    participant = services.participant_arrive(study=study, pid=pid(1))
    qualify(participant)
    services.participant_exclude(rater=participant.rater, source="manual", reason="looked odd")
    services.participant_include(rater=participant.rater, reason="checked: fine")
    mine = Slot.objects.filter(participant=participant)
    assert set(mine.values_list("status", flat=True)) == {"reserved"}  # still theirs to rate
    rate_all(participant)  # their ratings count: nobody else is asked for these samples
    assert set(mine.values_list("status", flat=True)) == {"done"}
    held = set(mine.values_list("sample_id", flat=True))
    spare = Slot.objects.filter(study=study, sample_id__in=held).exclude(participant=participant)
    assert not spare.exists()
