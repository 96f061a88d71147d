"""Issue 28 in real headless Chromium: a slow qualification (past the hold) keeps its
answers, or explains itself with the right reason (the hold, not the study's time limit)
and gives the code. Time is moved in the database, never slept through (at most the
2 seconds a clock takes to reach zero)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from studies import services
from studies.models import Participant
from tests.conftest import screenshot

from .helpers import open_study, pid

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _start(page, live_server, study, prolific_pid: str) -> None:
    page.goto(
        f"{live_server.url}/s/{study.slug}/?PROLIFIC_PID={prolific_pid}&STUDY_ID=st&SESSION_ID=se"
    )
    limits = page.text_content("#limits")
    assert "10 minutes from when you agree" in limits and "60 minutes in all" in limits
    page.click("#start-qualification")
    page.wait_for_url(re.compile(r"/qualification/$"))
    assert "Time left for the qualification test: 10 minutes" in page.text_content("#time-left")


def _answer(page, study) -> None:
    for q in study.check_questions.filter(in_qualification=True):  # the drawn ones are shown
        if page.locator(f'input[name="q{q.pk}"]').count():
            page.click(f'label:has(input[name="q{q.pk}"][value="{q.expected}"])')


def _hold_ends_in(seconds: float) -> None:
    """The participant agreed so long ago that the 10-minute hold ends in ``seconds``."""
    started = timezone.now() - timedelta(minutes=10) + timedelta(seconds=seconds)
    Participant.objects.update(started_at=started)


def test_a_slow_qualification_keeps_its_answers_and_goes_on(page, live_server):
    study = open_study(4, per_participant=2, ratings=2, minutes=60, slug="slow")
    _start(page, live_server, study, pid(1))
    _hold_ends_in(2)
    page.reload()  # the clock now ends in 2 seconds: its notice says answers still count
    page.locator("#time-warning", has_text="still saved and graded").wait_for(timeout=8000)
    assert page.text_content(".time-left .value").strip() == "0 minutes"
    screenshot(page, "late-qualification-clock")
    _answer(page, study)
    page.click("#submit-qualification")
    page.wait_for_url(re.compile(r"/s/slow/rate/0/$"))
    participant = Participant.objects.get()
    assert participant.status == "qualified" and participant.qualification_late
    assert len(participant.qualification_answers) == 4


def test_a_slow_qualification_whose_places_went_to_others_names_the_hold(page, live_server):
    study = open_study(4, per_participant=2, ratings=2, minutes=60, slug="gone")
    _start(page, live_server, study, pid(2))
    _answer(page, study)
    _hold_ends_in(-60)  # the hold ended a minute ago ...
    assert services.participants_expire(study=study) == 1  # ... and cron gave the places away
    page.click("#submit-qualification")
    page.wait_for_url(re.compile(r"/s/gone/timed-out/$"))
    reason = page.text_content("#reason")
    assert "within 10 minutes of agreeing" in reason and "60 minutes" not in reason
    assert "They are saved and you passed" in page.text_content("#kept")
    assert page.text_content("#code").strip() == study.completion_code
    screenshot(page, "late-qualification-hold")
    participant = Participant.objects.get()
    assert participant.status == "timed_out" and participant.qualification_late
    assert len(participant.qualification_answers) == 4
