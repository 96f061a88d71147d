"""Holds that scale with trust (studies/holds.py): per-client caps on holds, the study's cap
counted per client, shorter holds for a client holding many, heartbeats and the closed-page
beacon, a failed qualification releasing at once, a lapsed hold giving its PID back, and the
per-study rate limit counting only what the per-client limit let through."""

from __future__ import annotations

import re
import threading
from datetime import timedelta

import pytest
from django.db import connection, connections
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from studies import holds, services
from studies.models import Participant, Slot

from .helpers import open_study, participant_row, pid
from .test_participant_views import answered, arrive, arrive_url, moved_on

pytestmark = pytest.mark.django_db


def _browser(address: str) -> Client:
    return Client(REMOTE_ADDR=address)


def _consent(study, n: int, address: str):
    return arrive(_browser(address), study, pid(n))


def test_a_hold_is_halved_for_each_place_the_client_holds_never_under_the_floor():
    assert [holds.hold_seconds(600, n, 120) for n in range(5)] == [600, 300, 150, 120, 120]
    assert holds.hold_seconds(60, 3, 120) == 60  # never longer than the study's own hold


def test_one_client_holds_at_most_its_unqualified_cap_and_others_still_get_in(settings):
    settings.HOLD_UNQUALIFIED_PER_CLIENT = 3
    study = open_study(12, per_participant=2)
    codes = [answered(_consent(study, n, "203.0.113.9")) for n in range(5)]
    assert codes == ["next", "next", "next", 429, 429]
    refused = _consent(study, 7, "203.0.113.9")
    assert "from your network" in refused.content.decode()
    assert Participant.objects.filter(client="203.0.113.9").count() == 3
    assert moved_on(_consent(study, 8, "198.51.100.4"))


def test_qualified_holds_count_towards_the_clients_cap_in_all(settings):
    settings.HOLD_UNQUALIFIED_PER_CLIENT = 5
    settings.HOLD_TOTAL_PER_CLIENT = 2
    study = open_study(12, per_participant=2)
    for n in range(2):
        browser = _browser("203.0.113.9")
        arrive(browser, study, pid(n))
        answers = {f"q{q.pk}": q.expected for q in study.check_questions.all()}
        browser.post(reverse("participate:qualification", args=[study.slug]), answers)
    assert Participant.objects.filter(status="qualified").count() == 2
    assert _consent(study, 3, "203.0.113.9").status_code == 429


def test_each_further_hold_of_a_client_is_shorter(settings):
    settings.HOLD_UNQUALIFIED_PER_CLIENT = 4
    settings.HOLD_MIN_SECONDS = 120
    study = open_study(12, per_participant=2)  # 10-minute qualification hold
    for n in range(4):
        _consent(study, n, "203.0.113.9")
    lengths = [
        round((p.held_until - p.started_at).total_seconds())
        for p in Participant.objects.order_by("pk")
    ]
    assert lengths == [600, 300, 150, 120]
    other = _consent(study, 9, "198.51.100.4")
    assert moved_on(other)
    last = Participant.objects.get(client="198.51.100.4")
    assert round((last.held_until - last.started_at).total_seconds()) == 600


def test_the_studys_unqualified_cap_counts_each_client_below_the_cap(settings):
    settings.HOLD_UNQUALIFIED_PER_CLIENT = 3
    study = open_study(12, per_participant=2)
    study.max_unqualified = 3
    study.save()
    assert all(moved_on(_consent(study, n, "203.0.113.9")) for n in range(3))
    assert holds.unqualified_count(study) == 2  # one client alone never fills the cap
    assert moved_on(_consent(study, 5, "198.51.100.4"))
    busy = _consent(study, 6, "198.51.100.5")
    assert busy.status_code == 429
    assert "Many people are starting this study right now" in busy.content.decode()


def test_without_per_client_caps_the_study_cap_counts_every_hold(settings):
    settings.HOLD_UNQUALIFIED_PER_CLIENT = 0
    settings.HOLD_TOTAL_PER_CLIENT = 0
    study = open_study(12, per_participant=2)
    study.max_unqualified = 3
    study.save()
    codes = [answered(_consent(study, n, "203.0.113.9")) for n in range(4)]
    assert codes == ["next", "next", "next", 429]


def test_the_study_rate_limit_counts_only_what_the_client_limit_let_through(client, settings):
    settings.STUDY_RATE_PER_IP = 2
    settings.STUDY_RATE_PER_STUDY = 3
    study = open_study()
    flood = [
        client.get(arrive_url(study.slug, pid(n)), REMOTE_ADDR="203.0.113.9").status_code
        for n in range(20)
    ]
    assert flood == [200, 200] + [429] * 18
    real = client.get(arrive_url(study.slug, pid(30)), REMOTE_ADDR="198.51.100.4")
    assert real.status_code == 200  # the 18 refused requests were not counted for the study
    assert client.get(arrive_url(study.slug, pid(31)), REMOTE_ADDR="198.51.100.5").status_code == (
        429
    )


def test_a_refused_qualification_post_is_not_counted_for_the_study(settings):
    study = open_study(12, per_participant=2)
    url = reverse("participate:qualification", args=[study.slug])
    squatter, real = _browser("203.0.113.9"), _browser("198.51.100.4")
    arrive(squatter, study, pid(1))
    arrive(real, study, pid(2))
    settings.STUDY_RATE_PER_IP = 1
    settings.STUDY_RATE_PER_STUDY = 2
    assert [squatter.post(url, {}).status_code for _ in range(10)] == [200] + [429] * 9
    answers = {f"q{q.pk}": q.expected for q in study.check_questions.all()}
    assert moved_on(real.post(url, answers))
    assert Participant.objects.get(prolific_pid=pid(2)).status == "qualified"


def _hold_url(study) -> str:
    return reverse("participate:hold", args=[study.slug])


def test_the_pages_before_qualifying_carry_the_heartbeat_script(client):
    study = open_study()
    page = client.get(arrive_url(study.slug, pid(1)))
    # nothing is held before consent: the heartbeat does not run (the page only hints that
    # the next pages need the script, <link rel="prefetch">, which runs nothing)
    html = page.content.decode()
    assert not re.search(r"<script|hold-heartbeat", html)
    assert re.search(r'<link rel="prefetch" href="[^"]*js/participant[^"]*\.js">', html)
    arrive(client, study, pid(1))
    for name in ("welcome", "qualification"):
        html = client.get(reverse(f"participate:{name}", args=[study.slug])).content.decode()
        assert f'<meta name="hold-heartbeat" content="{_hold_url(study)}" data-csrf="' in html
        assert len(re.findall(r'<script src="[^"]*js/participant[^"]*\.js" defer>', html)) == 1


def test_a_heartbeat_keeps_the_hold_and_a_closed_page_lets_it_lapse_soon(client, settings):
    settings.HOLD_IDLE_SECONDS = 300
    settings.HOLD_GONE_SECONDS = 30
    study = open_study()
    arrive(client, study, pid(1))
    participant = Participant.objects.get()
    assert participant.lapse_at is None  # no page script has called: the plain hold
    assert client.post(_hold_url(study)).status_code == 204
    participant.refresh_from_db()
    left = (participant.lapse_at - timezone.now()).total_seconds()
    assert 290 < left <= 300
    assert client.post(_hold_url(study), {"gone": "1"}).status_code == 204
    participant.refresh_from_db()
    assert 20 < (participant.lapse_at - timezone.now()).total_seconds() <= 30
    assert holds.unqualified_count(study) == 1


def test_a_lapsed_hold_gives_its_places_back_and_a_heartbeat_cannot_revive_it(client):
    study = open_study()
    arrive(client, study, pid(1))
    participant = Participant.objects.get()
    held = Slot.objects.filter(participant=participant).count()
    assert held > 0
    # the page said it was closed and nothing called since: the lapse time has passed
    Participant.objects.update(lapse_at=timezone.now() - timedelta(seconds=1))
    assert holds.unqualified_count(study) == 0
    assert client.post(_hold_url(study)).status_code == 204
    participant.refresh_from_db()
    assert participant.lapse_at < timezone.now()  # still lapsed
    assert services.participants_expire(study=study) == 1
    assert Slot.objects.filter(participant=participant).count() == 0
    page = client.get(reverse("participate:qualification", args=[study.slug]))
    assert page["Location"] == reverse("participate:timed_out", args=[study.slug])


def test_a_heartbeat_without_a_participant_is_404_and_a_get_is_refused(client):
    study = open_study()
    assert client.post(_hold_url(study)).status_code == 404
    assert client.get(_hold_url(study)).status_code == 405


def test_a_failed_qualification_releases_the_hold_at_once(settings):
    settings.HOLD_UNQUALIFIED_PER_CLIENT = 1
    study = open_study(12, per_participant=2)
    browser = _browser("203.0.113.9")
    arrive(browser, study, pid(1))
    wrong = {f"q{q.pk}": 1 if q.expected >= 3 else 5 for q in study.check_questions.all()}
    browser.post(reverse("participate:qualification", args=[study.slug]), wrong)
    screened = Participant.objects.get()
    assert screened.status == "screened_out"
    assert Slot.objects.filter(participant=screened).count() == 0
    assert moved_on(_consent(study, 2, "203.0.113.9"))  # the client's hold is free


def test_a_pid_whose_unqualified_hold_lapsed_can_be_used_by_its_owner():
    study = open_study()
    _consent(study, 1, "203.0.113.9")  # a stranger consents with someone's PID
    burnt = Participant.objects.get()
    owner = _browser("198.51.100.4")
    assert owner.get(arrive_url(study.slug, pid(1))).status_code == 409  # held: still theirs
    Participant.objects.update(lapse_at=timezone.now() - timedelta(seconds=1))
    assert moved_on(arrive(owner, study, pid(1)))
    burnt.refresh_from_db()
    assert (burnt.status, burnt.prolific_pid, burnt.pid_before_reset) == ("timed_out", "", pid(1))
    mine = Participant.objects.get(prolific_pid=pid(1))
    assert mine.client == "198.51.100.4" and mine.status == "started"


def test_a_qualified_pid_is_never_given_back_by_a_lapse(settings):
    study = open_study()
    participant = services.participant_arrive(study=study, pid=pid(1))
    answers = {q.pk: q.expected for q in study.check_questions.all()}
    services.participant_qualify(participant=participant, answers=answers)
    Participant.objects.update(started_at=timezone.now() - timedelta(days=2))
    assert holds.pid_taken(study, pid(1))
    with pytest.raises(services.OtherBrowser):
        services.participant_arrive(study=study, pid=pid(1), resume_hash="x" * 64)


def test_a_pid_whose_test_was_answered_late_is_not_given_back():
    study = open_study()
    _consent(study, 1, "203.0.113.9")
    Participant.objects.update(status="timed_out", qualification_answers={"1": 3})
    assert holds.pid_taken(study, pid(1))
    owner = Client(REMOTE_ADDR="198.51.100.4")
    assert owner.get(arrive_url(study.slug, pid(1))).status_code == 409
    Participant.objects.update(qualification_answers={})
    assert not holds.pid_taken(study, pid(1))


def test_an_ipv6_client_counts_by_its_64_network(settings):
    settings.HOLD_UNQUALIFIED_PER_CLIENT = 2
    study = open_study(12, per_participant=2)
    codes = [answered(_consent(study, n, f"2001:db8:1:2::{n + 1:x}")) for n in range(3)]
    assert codes == ["next", "next", 429]
    assert set(Participant.objects.values_list("client", flat=True)) == {"2001:db8:1:2::/64"}


def _consent_race(study, n: int, barrier, results: list) -> None:
    try:
        barrier.wait(timeout=30)
        services.participant_arrive(study=study, pid=pid(n), client="203.0.113.9")
        results.append("in")
    except services.StudyBusy:
        results.append("busy")
    except Exception as exc:  # collected and asserted on in the main thread
        results.append(repr(exc))
    finally:
        connections.close_all()


@pytest.mark.django_db(transaction=True)
def test_concurrent_consents_from_one_client_never_pass_its_cap(settings):
    if connection.vendor != "postgresql":
        pytest.skip("concurrent transactions need PostgreSQL (CI runs it there)")
    settings.HOLD_UNQUALIFIED_PER_CLIENT = 3
    study = open_study(40, per_participant=2, slug="race")
    barrier = threading.Barrier(12)
    results: list[str] = []
    threads = [
        threading.Thread(target=_consent_race, args=(study, n, barrier, results)) for n in range(12)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(results) == ["busy"] * 9 + ["in"] * 3
    assert Participant.objects.filter(study=study, client="203.0.113.9").count() == 3


def test_the_sql_hold_rule_agrees_with_is_late_at_every_edge(settings):
    """``sql.holding`` (what ``participants_expire``, the study's cap and a client's caps
    count) and ``Participant.is_late`` are the same rule: checked on participants at, just
    inside and just past each of its bounds (hold from consent, ``held_until``,
    ``lapse_at``), qualified or not, active or not."""
    study = open_study()
    now = timezone.now()
    unqualified = timedelta(minutes=study.hold_minutes(False))
    qualified = timedelta(minutes=study.hold_minutes(True))
    tick = timedelta(microseconds=1)
    cases = []
    for status, hold in (("started", unqualified), ("qualified", qualified)):
        for started in (now - hold - tick, now - hold, now - hold + tick, now):
            for bound in (None, now - tick, now, now + tick):
                cases.append((status, started, bound, None))
                cases.append((status, started, None, bound))
    cases += [("timed_out", now, None, None), ("finished", now - qualified * 2, None, None)]
    made = []
    for n, (status, started, held_until, lapse_at) in enumerate(cases):
        p = participant_row(
            study, n, status=status, held_until=held_until, lapse_at=lapse_at, client="10.0.0.1"
        )
        Participant.objects.filter(pk=p.pk).update(started_at=started)
        made.append(p.pk)
    stored = Participant.objects.filter(pk__in=made)
    late_in_sql = set(stored.filter(holds.late(study, now)).values_list("pk", flat=True))
    late_in_python = {p.pk for p in stored if p.is_late(now)}
    assert late_in_sql == late_in_python
    assert 0 < len(late_in_sql) < len(made) - 2  # both sides of every bound were there
    held = [p for p in stored if p.is_active and not p.is_late(now)]
    settings.HOLD_UNQUALIFIED_PER_CLIENT = 0  # the study's count: every hold, uncapped
    assert holds.unqualified_count(study, now) == sum(p.status == "started" for p in held)
