"""The study page in real headless Chromium at 390x844 (issue 28): the counts update without
a reload while participants rate, and an exclusion asks for a reason first and leaves its
notice in view beside the participant's row."""

from __future__ import annotations

import re

import pytest

from annotations.models import RaterExclusion
from studies import services
from tests.conftest import screenshot

from .helpers import open_study, pid, qualify, rate_all
from .test_study_browser import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}


def test_the_page_updates_itself_and_an_exclusion_needs_a_reason(browser, live_server, researcher):
    study = open_study(4, per_participant=4, ratings=2, slug="demo")
    participant = services.participant_arrive(study=study, pid=pid(1))
    qualify(participant)
    staff = browser.new_context(viewport=PHONE).new_page()
    errors: list[str] = []
    staff.on("pageerror", lambda exc: errors.append(str(exc)))
    log_in(staff, live_server, f"/studies/{study.pk}/")
    assert staff.text_content("#study-ratings").strip() == "0"
    assert staff.text_content("#places-reserved").strip() == "4"
    staff.evaluate("window.notReloaded = true")

    rate_all(participant)  # the participant finishes while the page is open
    # the page polls every 10 s while visible; showing the tab again polls at once
    staff.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    staff.wait_for_selector("#study-ratings:text-is('4')")
    assert staff.evaluate("window.notReloaded") is True
    assert staff.text_content("#places-done").strip() == "4"
    assert staff.text_content("#chip-finished").strip() == "1"
    assert sorted(staff.locator("#sample-stats td.n").all_text_contents()).count("1") == 4
    assert "Updated at" in staff.text_content("#live-note")
    assert staff.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]

    staff.click(f"#participant-{participant.pk} a.toggle")
    staff.wait_for_url(re.compile(r"/toggle/$"))
    staff.click("#confirm-exclusion")  # no reason yet: the browser keeps the page
    assert staff.url.endswith("/toggle/") and not RaterExclusion.objects.exists()
    staff.fill("textarea[name=reason]", "all 3s, 4 items in under a minute")
    screenshot(staff, "study-exclusion-confirm-390")
    staff.click("#confirm-exclusion")
    staff.wait_for_url(re.compile(rf"/studies/{study.pk}/#participant-{participant.pk}$"))
    notice = staff.locator(".messages li").first
    assert "is now excluded" in notice.text_content()
    box = notice.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"]
    row = staff.locator(f"#participant-{participant.pk}").bounding_box()
    assert row is not None and 0 <= row["y"] < PHONE["height"]  # the row is in view too
    screenshot(staff, "study-exclusion-notice-390")
    assert RaterExclusion.objects.get().reason == "all 3s, 4 items in under a minute"
    assert errors == []


def test_polling_runs_every_ten_seconds_and_pauses_while_the_tab_is_hidden(
    browser, live_server, researcher
):
    study = open_study(4, per_participant=4, ratings=2, slug="demo")
    staff = browser.new_context(viewport=PHONE).new_page()
    polls: list[str] = []
    staff.on("request", lambda r: polls.append(r.url) if "/live.json" in r.url else None)
    staff.clock.install()  # the page's timers run on a clock the test moves
    log_in(staff, live_server, f"/studies/{study.pk}/")
    assert polls == []
    with staff.expect_request(lambda r: "/live.json" in r.url):
        staff.clock.run_for(10_500)
    staff.wait_for_selector("#live-note:has-text('Updated at')")
    assert len(polls) == 1 and "ids=" in polls[0]

    staff.evaluate(
        "Object.defineProperty(document, 'hidden', {configurable: true, get: () => true});"
        "document.dispatchEvent(new Event('visibilitychange'))"
    )
    staff.clock.run_for(120_000)  # two minutes hidden: no request
    staff.wait_for_timeout(300)  # let any request that was wrongly sent show up
    assert len(polls) == 1

    with staff.expect_request(lambda r: "/live.json" in r.url):
        staff.evaluate(
            "Object.defineProperty(document, 'hidden', {configurable: true, get: () => false});"
            "document.dispatchEvent(new Event('visibilitychange'))"
        )
    assert len(polls) == 2  # shown again: one poll at once, without waiting for the clock


def test_the_study_form_explains_adaptive_settings_as_they_are_typed(
    browser, live_server, researcher
):
    staff = browser.new_context(viewport=PHONE).new_page()
    log_in(staff, live_server, "/studies/new/")
    lines = staff.locator("#outlook-lines")
    assert "Even a sample whose raters all agree gets 7" in lines.text_content()
    staff.fill("#id_target_width", "2")
    staff.wait_for_selector(
        "#outlook-lines:has-text('a sample whose raters all agree gets no more')"
    )
    staff.fill("#id_target_width", "0.5")
    staff.wait_for_selector("#outlook-lines:has-text('no interval of 9 ratings is as narrow')")
    staff.fill("#id_target_width", "")  # empty: the default again
    staff.wait_for_selector(
        "#outlook-lines:has-text('Even a sample whose raters all agree gets 7')"
    )
    assert staff.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
