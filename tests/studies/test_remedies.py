"""Researcher remedies (studies/remedies.py, studies/participant_views.py): end every hold of
one client or time window in one action (optionally excluding them), reset a burnt PID so
its owner can take part, and a participants table that reaches every participant."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotations.models import Rater, RaterExclusion
from studies import remedies, services
from studies.models import Participant, Remedy, Slot

from .helpers import open_study, participant_row, pid
from .test_participant_views import arrive, arrive_url, moved_on, qualify_by_post

pytestmark = pytest.mark.django_db

SQUATTER = "203.0.113.9"


def _arrive_from(study, n: int, address: str, *, qualified: bool = False) -> Client:
    browser = Client(REMOTE_ADDR=address)
    assert moved_on(arrive(browser, study, pid(n)))
    if qualified:
        qualify_by_post(browser, study)
    return browser


def _held(study, address: str) -> int:
    return Slot.objects.filter(study=study, participant__client=address, status="reserved").count()


def test_a_researcher_frees_every_hold_of_one_client_in_one_action(researcher_client, researcher):
    study = open_study(12, per_participant=2)
    for n in range(3):
        _arrive_from(study, n, SQUATTER, qualified=n == 0)
    _arrive_from(study, 9, "198.51.100.4")
    assert _held(study, SQUATTER) == 6
    url = reverse("studies:remedy", args=[study.pk])
    page = researcher_client.get(url, {"client": SQUATTER})
    assert page.status_code == 200
    assert 'id="n-active">3<' in page.content.decode()
    response = researcher_client.post(url, {"client": SQUATTER, "reason": "made-up PIDs"})
    assert response.status_code == 302
    assert response["Location"].endswith("#participants")
    squatters = Participant.objects.filter(client=SQUATTER)
    assert set(squatters.values_list("status", flat=True)) == {"timed_out"}
    assert _held(study, SQUATTER) == 0
    assert Participant.objects.get(client="198.51.100.4").status == "started"
    assert not RaterExclusion.objects.exists()  # release only: nobody excluded
    record = Remedy.objects.get()
    assert (record.action, record.client, record.count) == ("release", SQUATTER, 3)
    assert (record.by, record.reason) == (researcher, "made-up PIDs")
    log = researcher_client.get(url).content.decode()
    assert "made-up PIDs" in log and researcher.username in log


def test_a_time_window_can_be_released_and_excluded_at_once(researcher):
    study = open_study(12, per_participant=2)
    early = services.participant_arrive(study=study, pid=pid(1), client="a")
    inside = [services.participant_arrive(study=study, pid=pid(n), client="b") for n in (2, 3)]
    Participant.objects.filter(pk=early.pk).update(started_at=timezone.now() - timedelta(hours=2))
    window = remedies.Selection(started_from=timezone.now() - timedelta(hours=1))
    done = remedies.holds_release(
        study=study, selection=window, exclude=True, reason="bot wave", by=researcher
    )
    assert (done.action, done.count) == ("exclude", 2)
    excluded = set(Rater.objects.excluded().values_list("pk", flat=True))
    assert excluded == {p.rater_id for p in inside}
    reasons = set(RaterExclusion.objects.values_list("reason", "created_by"))
    assert reasons == {("Bulk remedy: bot wave", researcher.pk)}
    early.refresh_from_db()
    assert early.status == "started"


@pytest.mark.parametrize(
    "data",
    [
        {"reason": "no selection"},
        {"client": SQUATTER, "reason": "  "},
        {"started_from": "2030-01-02T10:00", "started_to": "2030-01-01T10:00", "reason": "x"},
    ],
)
def test_a_remedy_without_a_selection_or_a_reason_changes_nothing(researcher_client, data):
    study = open_study(12, per_participant=2)
    _arrive_from(study, 1, SQUATTER)
    response = researcher_client.post(reverse("studies:remedy", args=[study.pk]), data)
    assert response.status_code == 400
    assert Participant.objects.get().status == "started"
    assert not Remedy.objects.exists()


@pytest.mark.parametrize("exclude", [False, True])
def test_a_second_click_records_no_second_remedy_and_says_why(researcher_client, exclude):
    study = open_study(12, per_participant=2)
    _arrive_from(study, 1, SQUATTER)
    url = reverse("studies:remedy", args=[study.pk])
    data = {"client": SQUATTER, "reason": "made-up PIDs"} | ({"exclude": "on"} if exclude else {})
    assert researcher_client.post(url, data).status_code == 302
    again = researcher_client.post(url, data)  # a double submit: nothing left to change
    assert again.status_code == 400
    assert "Nothing was changed" in again.content.decode()
    assert Remedy.objects.count() == 1 and Remedy.objects.get().count == 1
    with pytest.raises(services.StudyError, match="No remedy is recorded"):
        remedies.holds_release(
            study=study,
            selection=remedies.Selection(client=SQUATTER),
            exclude=exclude,
            reason="again",
        )
    assert Remedy.objects.count() == 1


def test_a_burnt_pid_can_be_reset_and_then_its_owner_arrives_fine(researcher_client, researcher):
    study = open_study(12, per_participant=2)
    _arrive_from(study, 1, SQUATTER, qualified=True)  # a stranger used someone's PID
    owner = Client(REMOTE_ADDR="198.51.100.4")
    assert owner.get(arrive_url(study.slug, pid(1))).status_code == 409
    burnt = Participant.objects.get()
    url = reverse("studies:pid_reset", args=[study.pk, burnt.pk])
    page = researcher_client.get(url)
    assert page.status_code == 200 and pid(1) in page.content.decode()
    assert researcher_client.post(url, {"reason": "owner wrote via Prolific"}).status_code == 302
    burnt.refresh_from_db()
    assert (burnt.prolific_pid, burnt.pid_before_reset, burnt.status) == ("", pid(1), "timed_out")
    assert Rater.objects.excluded().filter(pk=burnt.rater_id).exists()
    assert Slot.objects.filter(participant=burnt, status="reserved").count() == 0
    record = Remedy.objects.get()
    assert (record.action, record.pid, record.by) == ("pid_reset", pid(1), researcher)
    assert moved_on(arrive(owner, study, pid(1)))
    qualify_by_post(owner, study)
    mine = Participant.objects.get(prolific_pid=pid(1))
    assert mine.pk != burnt.pk and mine.status == "qualified"
    table = researcher_client.get(reverse("studies:detail", args=[study.pk]), {"pq": pid(1)})
    rows = table.content.decode()
    assert f'id="participant-{burnt.pk}"' in rows and f'id="participant-{mine.pk}"' in rows


def test_a_pid_is_reset_only_once_and_only_with_a_reason(researcher_client):
    study = open_study(12, per_participant=2)
    participant = services.participant_arrive(study=study, pid=pid(1))
    url = reverse("studies:pid_reset", args=[study.pk, participant.pk])
    assert researcher_client.post(url, {"reason": ""}).status_code == 400
    assert researcher_client.post(url, {"reason": "burnt"}).status_code == 302
    page = researcher_client.post(url, {"reason": "again"}, follow=True)
    assert "reset already" in page.content.decode()
    assert Remedy.objects.count() == 1


def test_the_participants_table_pages_through_everyone_and_searches(researcher_client):
    study = open_study(12, per_participant=2)
    for n in range(130):
        participant_row(study, n, client=f"10.0.{n % 3}.1")
    url = reverse("studies:detail", args=[study.pk])
    first = researcher_client.get(url).content.decode()
    second = researcher_client.get(url, {"ppage": 2}).content.decode()
    assert first.count('<tr id="participant-') == 100
    assert second.count('<tr id="participant-') == 30
    oldest = Participant.objects.get(prolific_pid=pid(0))
    assert f'id="participant-{oldest.pk}"' in second  # the oldest rows stay reachable
    found = researcher_client.get(url, {"pq": pid(0)}).content.decode()
    assert found.count('<tr id="participant-') == 1 and pid(0) in found
    by_client = researcher_client.get(url, {"pq": "10.0.2.1"}).content.decode()
    assert by_client.count('<tr id="participant-') == 43
    assert "pq=10.0.2.1&amp;ppage=" not in by_client  # one page: no page links
    none = researcher_client.get(url, {"pstatus": "finished"}).content.decode()
    assert "Nobody matches." in none
