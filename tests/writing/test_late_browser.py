"""Issue 28 in real headless Chromium: a writer sees the time left; when the clock reaches
zero the sentence being typed is sent and saved marked late, and the time-up page gives the
code; a writer with nothing typed gets the time-up page naming the limit. Time is moved in
the database (the clock then ends within 2 seconds), never slept through."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from studies.models import Participant, Study
from tests.conftest import screenshot
from tests.studies.helpers import pid
from tests.writing.helpers import SENTENCES, make_pool, open_writing_study
from tests.writing.test_writing_browser import arrive_and_qualify
from writing.models import Sentence

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _limit_ends_in(study: Study, seconds: float) -> None:
    started = timezone.now() - timedelta(minutes=study.time_limit_minutes, seconds=-seconds)
    Participant.objects.update(started_at=started)


def _writer(browser, live_server, prolific_pid: str):
    make_pool()
    study = open_writing_study(Study.Activity.SENTENCES, slug="sent", per=5)
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    arrive_and_qualify(page, live_server, "sent", prolific_pid, study)
    page.wait_for_url(re.compile(r"/s/sent/sentences/$"))
    assert "Time left: 60 minutes" in page.text_content("#time-left")
    return study, page


def test_a_sentence_typed_when_the_time_runs_out_is_saved_with_the_code(browser, live_server):
    study, page = _writer(browser, live_server, pid(1))
    _limit_ends_in(study, 2)
    page.reload()
    page.fill("#text", SENTENCES[page.text_content("#word").strip()])  # not sent by hand
    page.wait_for_url(re.compile(r"/s/sent/timed-out/$"), timeout=10000)
    assert page.text_content("#code").strip() == "WRITE123"
    assert "marked as sent after the time limit" in page.text_content("#timed-out")
    assert "(60 minutes)" in page.text_content("#reason")
    screenshot(page, "late-sentence-code")
    sentence = Sentence.objects.get()
    assert sentence.late and sentence.participant.status == "timed_out"


def test_a_writer_with_nothing_typed_gets_the_time_up_page(browser, live_server):
    study, page = _writer(browser, live_server, pid(2))
    _limit_ends_in(study, 5 * 60 - 1)  # the warning shows at once ...
    page.reload()
    assert "Please finish soon" in page.text_content("#time-warning")
    _limit_ends_in(study, 1)  # ... and at zero the empty page reloads
    page.reload()
    page.wait_for_url(re.compile(r"/s/sent/timed-out/$"), timeout=10000)
    assert "(60 minutes)" in page.text_content("#reason")
    assert "return the study on Prolific" in page.text_content("#next-step")
    assert not Sentence.objects.exists()
