"""Headless Chromium: a participant rates a relatedness batch (a catch trial among the
pairs) and a sense-choice batch, by keyboard and mouse, and gets the completion code."""

from __future__ import annotations

import re

import pytest

from annotations.models import Rating, TaskKind
from studies.models import Participant
from tests.conftest import screenshot

from .helpers import BOT_ANSWERS, pid
from .kinds_helpers import fool_samples, open_kind_study, rawc_samples

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _start(page, live_server) -> Participant:
    page.goto(f"{live_server.url}/s/demo/?PROLIFIC_PID={pid(7)}&STUDY_ID=st&SESSION_ID=se")
    page.click("#start-qualification")  # consent
    assert "no qualification test" in page.text_content("#qualification")
    for fieldset in page.query_selector_all("#bot-checks fieldset"):  # RAW-C's bot checks
        key = fieldset.get_attribute("data-bot")
        page.check(f'fieldset[data-bot="{key}"] input[value="{BOT_ANSWERS[key]}"]')
    page.click("#submit-qualification")  # Start
    page.wait_for_url(re.compile(r"/s/demo/rate/0/$"))
    return Participant.objects.get(prolific_pid=pid(7))


def test_a_participant_rates_a_relatedness_batch_with_a_catch_trial(page, live_server):
    open_kind_study(TaskKind.RELATEDNESS, rawc_samples())
    participant = _start(page, live_server)
    checks = {a.position: a.question for a in participant.attention_answers.all()}
    assert len(checks) == 2
    for pos in range(6):
        page.wait_for_url(re.compile(rf"/rate/{pos}/$"))
        first = page.text_content("#sentence-1 strong.target")
        second = page.text_content("#sentence-2 strong.target")
        assert first and second and first.lower() == second.lower()
        assert "0 – Totally unrelated" in page.get_attribute("#score-0", "aria-label")
        if pos == 0:
            page.click("#next")  # nothing chosen: a message, no request
            assert "from 0 to 4" in page.text_content("#score-error")
            screenshot(page, "relatedness-rating")
        if pos in checks:
            page.keyboard.press(str(checks[pos].expected))  # the catch trial, by keyboard
            page.keyboard.press("Enter")
        else:
            page.click("label:has(#score-1)")  # a pair, by mouse
            page.click("#next")
    page.wait_for_url(re.compile(r"/done/$"))
    assert page.text_content("#code").strip() == "DONE1234"
    ratings = Rating.objects.filter(rater=participant.rater)
    assert ratings.count() == 4 and {r.kind for r in ratings} == {TaskKind.RELATEDNESS}
    assert all(a.passed for a in participant.attention_answers.all())


def test_a_participant_chooses_senses_in_a_batch(page, live_server):
    open_kind_study(TaskKind.SENSE_CHOICE, fool_samples("4"))
    participant = _start(page, live_server)
    for pos in range(4):
        page.wait_for_url(re.compile(rf"/rate/{pos}/$"))
        assert page.locator("#story strong.target").count() == 1
        assert page.locator("#choices input[name=score]").count() == 2
        if pos % 2:
            page.click("label:has(#score-1)")
            page.click("#next")
        else:
            page.keyboard.press("1")  # the first meaning shown
            page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/done/$"))
    scores = sorted(Rating.objects.filter(rater=participant.rater).values_list("score", flat=True))
    assert scores == [0, 0, 1, 1]


@pytest.mark.parametrize("kind", [TaskKind.RELATEDNESS, TaskKind.SENSE_CHOICE])
def test_the_pages_of_each_kind_fit_a_phone(browser, live_server, kind):
    samples = rawc_samples() if kind == TaskKind.RELATEDNESS else fool_samples("4")
    open_kind_study(kind, samples)
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    phone = context.new_page()
    try:
        _start(phone, live_server)
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390
        assert phone.locator("#next").is_visible()
        screenshot(phone, f"{kind}-rating-phone")
    finally:
        context.close()
