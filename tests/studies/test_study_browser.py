"""Issue 12 in real headless Chromium: preview, open, close after confirming with a participant
still finishing; study-scoped counts on an already-rated split; the qualification scale;
axe-core on the participant pages; the researcher study pages at 390 px."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from annotations.models import Rating
from studies import services
from studies.defaults import SCALE
from studies.models import Participant, Study
from tests.conftest import screenshot

from .helpers import open_study, pid, unrated_setups
from .test_study_scope import rated_setups

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE = Path(__file__).resolve().parents[2] / "static" / "vendor" / "axe-core" / "axe.min.js"


def log_in(page, live_server, next_url: str = "/studies/") -> None:
    page.goto(f"{live_server.url}/accounts/login/?next={next_url}")
    page.fill("input[name=username]", "rita")
    page.fill("input[name=password]", "rita-password")
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(re.escape(next_url) + "$"))


def arrive(page, live_server, slug: str, prolific_pid: str) -> None:
    page.goto(f"{live_server.url}/s/{slug}/?PROLIFIC_PID={prolific_pid}&STUDY_ID=st&SESSION_ID=se")


def qualify(page, study, *, correct: bool = True) -> None:
    page.wait_for_selector("#submit-qualification")
    for q in study.check_questions.filter(in_qualification=True):  # the drawn ones are shown
        score = q.expected if correct else 3
        if page.locator(f'input[name="q{q.pk}"]').count():
            page.click(f'label:has(input[name="q{q.pk}"][value="{score}"])')
    page.click("#submit-qualification")


def rate_items(page, slug_or_pattern: str, positions, checks: dict[int, int]) -> None:
    for pos in positions:
        page.wait_for_url(re.compile(rf"{slug_or_pattern}/rate/{pos}/$"))
        page.keyboard.press(str(checks.get(pos, 3)))
        page.keyboard.press("Enter")


def draft_study(slug: str = "demo") -> Study:
    return services.study_create(
        title="Plausibility demo",
        slug=slug,
        samples=unrated_setups(4),
        ratings_per_sample=2,
        samples_per_participant=4,
        attention_checks_per_batch=1,
        completion_code="DONE1234",
        screenout_code="OUT98765",
    )


def stored() -> tuple[int, int]:
    return Participant.objects.count(), Rating.objects.count()


def test_preview_open_start_then_close_after_confirming_and_the_participant_gets_a_code(
    browser, live_server, researcher
):
    study = draft_study()
    staff = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    crowd = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    log_in(staff, live_server, f"/studies/{study.pk}/")

    staff.click("#preview-study")
    assert "nothing you do here is stored" in staff.text_content("#preview-flag")
    staff.click("#start-qualification")
    qualify(staff, study)
    rate_items(staff, "/preview", range(5), {})
    staff.wait_for_url(re.compile(r"/preview/done/$"))
    assert staff.text_content("#code").strip() == "DONE1234"
    assert stored() == (0, 0)

    staff.goto(f"{live_server.url}/studies/{study.pk}/")
    staff.click("#open-study")
    staff.wait_for_selector("#study-status:has-text('Open')")

    arrive(crowd, live_server, "demo", pid(1))
    crowd.click("#start-qualification")
    qualify(crowd, study)
    participant = Participant.objects.get()
    checks = {a.position: a.question.expected for a in participant.attention_answers.all()}
    rate_items(crowd, "/s/demo", [0], checks)
    crowd.wait_for_url(re.compile(r"/s/demo/rate/1/$"))

    staff.click("#close-study")
    staff.wait_for_url(re.compile(r"/close/$"))
    assert "cannot be undone" in staff.text_content("#close-confirm")
    screenshot(staff, "study-close-confirm")
    assert staff.text_content("#n-active").strip() == "1"
    study.refresh_from_db()
    assert study.status == Study.Status.OPEN  # the confirm page closes nothing
    staff.click("#confirm-close")
    staff.wait_for_selector("#study-status:has-text('Closed')")

    crowd.reload()
    rate_items(crowd, "/s/demo", range(1, 5), checks)
    crowd.wait_for_url(re.compile(r"/s/demo/done/$"))
    assert crowd.text_content("#code").strip() == "DONE1234"
    assert Participant.objects.get().status == Participant.Status.FINISHED


def test_a_study_on_an_already_rated_split_shows_only_its_own_ratings(
    browser, live_server, researcher
):
    study = open_study(samples=rated_setups(4), per_participant=4, ratings=2, slug="demo")
    staff = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    log_in(staff, live_server, f"/studies/{study.pk}/")
    assert staff.text_content("#study-ratings").strip() == "0"
    assert staff.text_content("#n-short").strip() == "24"
    assert set(staff.locator("#sample-stats td.n").all_text_contents()) == {"0"}
    assert set(staff.locator("#sample-stats td.all").all_text_contents()) == {"5"}

    crowd = browser.new_context().new_page()
    arrive(crowd, live_server, "demo", pid(1))
    crowd.click("#start-qualification")
    qualify(crowd, study)
    participant = Participant.objects.get()
    checks = {a.position: a.question.expected for a in participant.attention_answers.all()}
    rate_items(crowd, "/s/demo", range(5), checks)
    crowd.wait_for_url(re.compile(r"/done/$"))

    staff.reload()
    assert staff.text_content("#study-ratings").strip() == "4"
    assert sorted(staff.locator("#sample-stats td.n").all_text_contents()) == ["0"] * 20 + ["1"] * 4
    assert staff.text_content("#n-short").strip() == "24"  # 2 wanted, 1 given


def test_the_qualification_page_shows_the_scale_and_the_guidelines_button(page, live_server):
    study = open_study(slug="demo")
    arrive(page, live_server, "demo", pid(1))
    page.click("#start-qualification")
    page.wait_for_url(re.compile(r"/qualification/$"))
    scale = page.text_content("#scale")
    for n, text in SCALE.items():
        assert f"{n} – {text}" in " ".join(scale.split())
    assert page.locator("#show-guidelines").is_visible()
    screenshot(page, "study-qualification-scale")
    first = page.locator('fieldset[data-question="1"]')
    assert first.locator("legend").count() == 1
    # the legend is inside the card: the fieldset's first child, within its box
    box, legend = first.bounding_box(), first.locator("legend").bounding_box()
    assert legend["y"] >= box["y"] and legend["x"] >= box["x"]
    label = first.locator('input[value="3"]').get_attribute("aria-label")
    assert label.startswith("3 – ") and SCALE[3] in label
    assert study.check_questions.count() >= 1


def axe_violations(page) -> list[dict]:
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("async () => await axe.run(document)")
    assert result["testEngine"]["version"] == "4.14.1" and result["passes"]  # axe really ran
    return [v for v in result["violations"] if v["impact"] in ("serious", "critical")]


def test_axe_finds_no_serious_or_critical_violation_on_the_participant_pages(browser, live_server):
    open_study(slug="demo", per_participant=4, ratings=2)
    seen: dict[str, list] = {}
    # bypass_csp: axe is injected as an inline script, which the site's CSP rightly blocks
    # (tests/security/test_csp_browser.py checks the policy on these pages).
    context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    tab = context.new_page()

    def check(name: str) -> None:
        seen[name] = [
            {"id": v["id"], "nodes": [n["target"] for n in v["nodes"]]} for v in axe_violations(tab)
        ]

    arrive(tab, live_server, "demo", pid(1))
    check("welcome")
    tab.goto(f"{live_server.url}/s/demo/guidelines/")
    check("guidelines")
    arrive(tab, live_server, "demo", pid(1))
    tab.click("#start-qualification")
    tab.wait_for_url(re.compile(r"/qualification/$"))
    check("qualification")
    study = Study.objects.get()
    qualify(tab, study)
    tab.wait_for_url(re.compile(r"/rate/0/$"))
    check("rating")
    tab.click("#next")  # no choice: the message is announced
    assert tab.text_content("#score-error").strip() == "Please select a plausibility from 1 to 5."
    check("rating with a message")
    participant = Participant.objects.get()
    checks = {a.position: a.question.expected for a in participant.attention_answers.all()}
    rate_items(tab, "/s/demo", range(5), checks)
    tab.wait_for_url(re.compile(r"/done/$"))
    check("done")

    other = browser.new_context(bypass_csp=True).new_page()
    tab = other
    arrive(tab, live_server, "demo", pid(1))  # another browser: a problem page (409)
    check("problem: other browser")
    arrive(tab, live_server, "demo", pid(2))
    tab.click("#start-qualification")
    qualify(tab, study, correct=False)
    tab.wait_for_url(re.compile(r"/screened-out/$"))
    check("screened out")
    services.study_pause(study=study)
    arrive(browser.new_context().new_page(), live_server, "demo", pid(3))
    tab = browser.new_context(bypass_csp=True).new_page()
    arrive(tab, live_server, "demo", pid(3))
    assert "This study is paused" in tab.content()
    check("problem: paused")
    bad = {name: found for name, found in seen.items() if found}
    assert not bad, json.dumps(bad, indent=1)


RESEARCHER_PAGES = [
    "/studies/",
    "/studies/new/",
    "/studies/{pk}/",
    "/studies/{pk}/edit/",
    "/studies/{pk}/close/",
    "/studies/{pk}/feedback/",
    "/studies/{pk}/participants/remedy/",
    "/studies/{pk}/preview/",
    "/studies/{pk}/preview/qualification/",
    "/studies/{pk}/preview/rate/0/",
]


def test_the_study_pages_have_no_horizontal_scroll_at_390_px(browser, live_server, researcher):
    study = open_study(slug="demo", per_participant=4, ratings=2)
    participant = services.participant_arrive(study=study, pid=pid(1))
    from .helpers import qualify as qualify_service
    from .helpers import rate_all

    qualify_service(participant)
    rate_all(participant, check_score=3)
    Rating.objects.filter(rater=participant.rater).update(
        comment="A long comment without spaces: " + "x" * 200, nonsensical=True
    )
    tab = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    log_in(tab, live_server)
    wide = {}
    for url in RESEARCHER_PAGES:
        tab.goto(live_server.url + url.format(pk=study.pk))
        sizes = tab.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
        if sizes[0] > sizes[1]:
            wide[url] = sizes
        if url == "/studies/{pk}/":
            screenshot(tab, "study-detail-390")
    assert not wide, wide


def test_time_left_warns_near_the_end_and_the_key_hint_hides_on_touch_phones(browser, live_server):
    study = open_study(slug="demo", per_participant=4, ratings=2, minutes=3)
    phone = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    ).new_page()
    arrive(phone, live_server, "demo", pid(1))
    phone.click("#start-qualification")
    qualify(phone, study)
    phone.wait_for_url(re.compile(r"/rate/0/$"))
    assert phone.locator("h1").count() == 1
    assert re.fullmatch(r"Time left: [123] minutes?", phone.text_content("[role=timer]").strip())
    assert "1 minutes" not in phone.text_content("#time-left")
    assert "Please finish soon" in phone.text_content("#time-warning")
    assert phone.locator(".keys").is_hidden()
    screenshot(phone, "study-rating-time-warning-phone")

    desk = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    arrive(desk, live_server, "demo", pid(2))
    desk.click("#start-qualification")
    qualify(desk, study)
    desk.wait_for_url(re.compile(r"/rate/0/$"))
    assert desk.locator(".keys").is_visible()


def test_when_time_runs_out_the_page_shows_the_code_to_a_participant_who_rated(
    browser, live_server
):
    from datetime import timedelta

    from django.utils import timezone

    study = open_study(slug="demo", per_participant=4, ratings=2, minutes=30)
    tab = browser.new_context(viewport={"width": 390, "height": 844}, bypass_csp=True).new_page()
    arrive(tab, live_server, "demo", pid(1))
    tab.click("#start-qualification")
    qualify(tab, study)
    participant = Participant.objects.get()
    checks = {a.position: a.question.expected for a in participant.attention_answers.all()}
    rate_items(tab, "/s/demo", range(1), checks)
    tab.wait_for_url(re.compile(r"/rate/1/$"))
    Participant.objects.update(started_at=timezone.now() - timedelta(minutes=31))

    tab.reload()  # what the countdown does at zero

    tab.wait_for_url(re.compile(r"/timed-out/$"))
    assert tab.text_content("h1").strip() == "Your time is up"
    assert tab.text_content("#code").strip() == study.completion_code
    assert tab.get_attribute("#prolific-link", "href") == study.completion_url(
        study.completion_code
    )
    found = [(v["id"], [n["target"] for n in v["nodes"]]) for v in axe_violations(tab)]
    assert not found, json.dumps(found, indent=1)
    screenshot(tab, "study-time-up-with-code-phone")
