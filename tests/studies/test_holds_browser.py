"""The heartbeat of the pages before the qualification test (static/js/participant.js) in real
headless Chromium: the page keeps its hold while open and says so when it goes away."""

from __future__ import annotations

import re
import time

import pytest
from django.utils import timezone

from studies.models import Participant

from .helpers import open_study, pid

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _lapse_in(seconds_below: float, timeout: float = 10.0) -> float:
    """Seconds from now to the participant's lapse time, once it is set and below
    ``seconds_below`` (polled: the heartbeat is sent by the page, not by this test)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lapse = Participant.objects.get().lapse_at
        if lapse is not None and (lapse - timezone.now()).total_seconds() < seconds_below:
            return (lapse - timezone.now()).total_seconds()
        time.sleep(0.1)
    raise AssertionError(f"lapse_at never came under {seconds_below} s")


def test_the_qualification_page_sends_heartbeats_and_a_beacon_when_it_is_left(
    page, live_server, settings
):
    settings.HOLD_IDLE_SECONDS = 300
    settings.HOLD_GONE_SECONDS = 30
    open_study(4, per_participant=4, ratings=3, checks=1, slug="demo")
    page.goto(f"{live_server.url}/s/demo/?PROLIFIC_PID={pid(1)}&STUDY_ID=st&SESSION_ID=se")
    page.click("#start-qualification")
    page.wait_for_url(re.compile(r"/s/demo/qualification/$"))
    assert 250 < _lapse_in(301) <= 300  # the heartbeat of the page that opened
    page.goto("about:blank")  # the participant leaves: the pagehide beacon
    assert 0 < _lapse_in(31) <= 30
    assert Participant.objects.get().status == "started"
