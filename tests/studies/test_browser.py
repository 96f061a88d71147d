"""End to end in real headless Chromium against a live server: Prolific arrival,
qualification, rating by keyboard and mouse, reload, completion, screen-out and resume."""

from __future__ import annotations

import re

import pytest

from annotations.models import Rating
from studies.models import Participant
from tests.conftest import screenshot

from .helpers import open_study, pid

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def study():
    return open_study(4, per_participant=4, ratings=3, checks=1, slug="demo")


def arrive(page, live_server, prolific_pid: str) -> None:
    page.goto(f"{live_server.url}/s/demo/?PROLIFIC_PID={prolific_pid}&STUDY_ID=st&SESSION_ID=se")


def take_qualification(page, study, *, correct: bool) -> None:
    page.click("#start-qualification")
    page.wait_for_selector("#submit-qualification")
    for q in study.check_questions.filter(in_qualification=True):  # the drawn ones are shown
        score = q.expected if correct else 3
        if page.locator(f'input[name="q{q.pk}"]').count():
            page.click(f'label:has(input[name="q{q.pk}"][value="{score}"])')
    page.click("#submit-qualification")


def expected_checks(prolific_pid: str) -> dict[int, int]:
    participant = Participant.objects.get(prolific_pid=prolific_pid)
    return {a.position: a.question.expected for a in participant.attention_answers.all()}


def finish_by_keyboard(page, checks: dict[int, int], first: int) -> None:
    """Answer items ``first``..4 by keyboard (the check's expected score, else 3) and see
    the completion code."""
    for pos in range(first, 5):
        page.wait_for_url(re.compile(rf"/rate/{pos}/$"))
        page.keyboard.press(str(checks.get(pos, 3)))
        page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/done/$"))
    assert page.text_content("#code").strip() == "DONE1234"


def progress(page) -> str:
    return page.text_content("#progress").strip()


def test_a_participant_rates_a_batch_by_keyboard_and_mouse_and_gets_the_code(
    page, live_server, study
):
    arrive(page, live_server, pid(1))
    assert "Introduction to the Plausibility Annotation Task" in page.content()
    take_qualification(page, study, correct=True)
    page.wait_for_url(re.compile(r"/s/demo/rate/0/$"))
    checks = expected_checks(pid(1))
    assert progress(page) == "Finished Samples: 0/5"
    assert page.locator("#story strong").count() == 1
    assert "(as in:" in page.text_content("#meaning")
    screenshot(page, "study-rating-desktop")
    page.click("#show-guidelines")
    assert page.locator("#guidelines-dialog").is_visible()
    assert "The displayed meaning is the only plausible meaning" in page.text_content("dialog")
    page.click("#close-guidelines")
    page.keyboard.press(str(checks.get(0, 4)))  # item 0 by keyboard
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/rate/1/$"))
    page.click(f"label:has(#score-{checks.get(1, 2)})")  # item 1 by mouse
    page.check("#nonsensical")
    page.fill("#comment", "odd story")
    page.click("#next")
    page.wait_for_url(re.compile(r"/rate/2/$"))
    page.reload()  # nothing saved is lost
    assert progress(page) == "Finished Samples: 2/5"
    page.click("#back")
    assert page.is_checked(f"#score-{checks.get(1, 2)}") and page.is_checked("#nonsensical")
    assert page.input_value("#comment") == "odd story"
    page.click("#next")
    finish_by_keyboard(page, checks, first=2)
    assert page.get_attribute("#prolific-link", "href").endswith("cc=DONE1234")
    participant = Participant.objects.get(prolific_pid=pid(1))
    assert participant.status == "finished"
    assert Rating.objects.filter(rater=participant.rater).count() == 4
    assert participant.attention_answers.get().passed is True
    arrive(page, live_server, pid(1))  # coming back shows the code again
    assert page.text_content("#code").strip() == "DONE1234"


def test_the_rating_page_fits_a_phone(browser, live_server, study):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    phone = context.new_page()
    try:
        arrive(phone, live_server, pid(4))
        take_qualification(phone, study, correct=True)
        phone.wait_for_url(re.compile(r"/rate/0/$"))
        width = phone.evaluate("document.documentElement.scrollWidth")
        assert width <= 390
        assert phone.locator("#next").is_visible()
        screenshot(phone, "study-rating-phone")
        phone.click("label:has(#score-3)")
        phone.click("#next")
        phone.wait_for_url(re.compile(r"/rate/1/$"))
        assert progress(phone) == "Finished Samples: 1/5"
    finally:
        context.close()


def test_a_wrong_qualification_answer_ends_with_the_screenout_code(page, live_server, study):
    arrive(page, live_server, pid(2))
    take_qualification(page, study, correct=False)
    page.wait_for_url(re.compile(r"/screened-out/$"))
    assert page.text_content("#code").strip() == "OUT98765"
    assert page.get_attribute("#prolific-link", "href").endswith("cc=OUT98765")
    page.goto(f"{live_server.url}/s/demo/rate/0/")
    assert page.text_content("#code").strip() == "OUT98765"


def test_a_returning_pid_resumes_in_its_browser_and_another_browser_sees_nothing(
    browser, live_server, study
):
    first = browser.new_context()
    tab = first.new_page()
    arrive(tab, live_server, pid(3))
    take_qualification(tab, study, correct=True)
    tab.wait_for_url(re.compile(r"/rate/0/$"))
    checks = expected_checks(pid(3))
    for pos in range(2):
        tab.keyboard.press(str(checks.get(pos, 2)))
        tab.keyboard.press("Enter")
        tab.wait_for_url(re.compile(rf"/rate/{pos + 1}/$"))
    story = tab.text_content("#story")
    tab.close()
    tab = first.new_page()  # the same browser comes back later
    arrive(tab, live_server, pid(3))
    assert re.search(r"/rate/2/$", tab.url)
    assert progress(tab) == "Finished Samples: 2/5"
    assert tab.text_content("#story") == story
    tab.click("#back")
    assert tab.is_checked(f"#score-{checks.get(1, 2)}")
    first.close()
    second = browser.new_context()  # another browser, same Prolific PID
    try:
        tab = second.new_page()
        arrive(tab, live_server, pid(3))
        assert "started this study in another browser" in tab.content()
        tab.goto(f"{live_server.url}/s/demo/rate/0/")
        assert tab.locator("input[type=radio]:checked").count() == 0
        assert "Finished Samples" not in tab.content()
    finally:
        second.close()


def test_next_brings_the_next_item_in_one_request_without_reloading_the_page(
    page, live_server, study
):
    """participant.js sends Next with fetch(): the answer is the next item's page, swapped in
    (the page is not reloaded: a value set on ``window`` survives), the address bar moves
    to it, the new title gets the focus, and one request per item reaches the server.
    Browser Back loads the previous item as a page; the last Next ends on the code page."""
    arrive(page, live_server, pid(5))
    take_qualification(page, study, correct=True)
    page.wait_for_url(re.compile(r"/rate/0/$"))
    checks = expected_checks(pid(5))
    page.evaluate("window.keptAcrossItems = 'yes'")
    token = page.input_value("#rate-form input[name=csrfmiddlewaretoken]")
    sent = []
    page.on("request", lambda r: sent.append((r.method, r.url)) if "/s/demo/" in r.url else None)
    page.keyboard.press(str(checks.get(0, 4)))
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/rate/1/$"))
    assert page.evaluate("window.keptAcrossItems") == "yes"
    assert [m for m, _ in sent] == ["POST"] and sent[0][1].endswith("/s/demo/rate/0/")
    assert progress(page) == "Finished Samples: 1/5"
    # only <main> and the title came: the page's header, stylesheets and script stay
    assert page.locator("header.study-bar").count() == 1
    assert page.locator("link[rel=stylesheet]").count() == 2
    assert page.locator("script[src*='participant']").count() == 1
    assert page.evaluate("document.activeElement.classList.contains('rate-title')")
    assert page.title().startswith("Sample 2 of 5")
    # the swapped-in form came without a CSRF token and keeps the page's (its POST below
    # would be refused with 403 without it)
    assert page.input_value("#rate-form input[name=csrfmiddlewaretoken]") == token
    # and without the guidelines dialog, which stays from the page and still opens
    assert page.locator("#guidelines-dialog").count() == 1
    page.click("#show-guidelines")
    assert page.locator("#guidelines-dialog").is_visible()
    page.click("#close-guidelines")
    assert not page.locator("#guidelines-dialog").is_visible()
    page.click(f"label:has(#score-{checks.get(1, 2)})")  # the swapped-in form works by mouse
    page.click("#next")
    page.wait_for_url(re.compile(r"/rate/2/$"))
    assert page.evaluate("window.keptAcrossItems") == "yes"
    page.go_back()  # the history entry of item 1, loaded as a page
    page.wait_for_url(re.compile(r"/rate/1/$"))
    page.wait_for_function("window.keptAcrossItems === undefined")
    assert page.is_checked(f"#score-{checks.get(1, 2)}")
    page.click("#next")  # re-saves item 1, then on to the first open item
    page.wait_for_url(re.compile(r"/rate/2/$"))
    finish_by_keyboard(page, checks, first=2)
    participant = Participant.objects.get(prolific_pid=pid(5))
    assert participant.status == "finished"
    assert Rating.objects.filter(rater=participant.rater).count() == 4


def _answered_in_place(page, pages: list, button: str, posted: str, shown: str, ready: str):
    """Click ``button``: its form's one document request is the POST to ``posted``, whose
    answer is the page at ``shown`` (address bar included); a reload then GETs ``shown``."""
    del pages[:]
    page.click(button)
    page.wait_for_url(re.compile(rf"/s/demo{re.escape(shown)}$"))
    page.wait_for_selector(ready)
    assert [(m, u.rsplit("/s/demo", 1)[1]) for m, u in pages] == [("POST", posted)]
    page.reload()
    page.wait_for_selector(ready)
    assert pages[-1][0] == "GET" and pages[-1][1].endswith(f"/s/demo{shown}")


def test_the_consent_and_the_test_answer_with_the_next_page_at_its_own_address(
    page, live_server, study
):
    """The consent POST is answered with the qualification test and the test's POST with the
    first item (no redirect and second request): the address bar shows each page's own
    address (participant.js), so a reload GETs that page and sends no form again (one
    participant, graded once), and the first item's Next saves as on any item."""
    arrive(page, live_server, pid(6))
    pages = []
    page.on(
        "request",
        lambda r: pages.append((r.method, r.url)) if r.resource_type == "document" else None,
    )
    _answered_in_place(
        page, pages, "#start-qualification", "/consent/", "/qualification/", "#submit-qualification"
    )
    assert Participant.objects.filter(prolific_pid=pid(6)).count() == 1
    for q in study.check_questions.filter(in_qualification=True):
        if page.locator(f'input[name="q{q.pk}"]').count():
            page.click(f'label:has(input[name="q{q.pk}"][value="{q.expected}"])')
    _answered_in_place(
        page, pages, "#submit-qualification", "/qualification/", "/rate/0/", "#rate-form"
    )
    participant = Participant.objects.get(prolific_pid=pid(6))
    assert participant.status == "qualified"
    checks = expected_checks(pid(6))
    page.keyboard.press(str(checks.get(0, 3)))
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/rate/1/$"))
    assert progress(page) == "Finished Samples: 1/5"
    page.go_back()  # the first item again, as a page (not the test's POST)
    page.wait_for_url(re.compile(r"/rate/0/$"))
    page.wait_for_selector("#rate-form")
    assert pages[-1][0] == "GET"
    assert Participant.objects.filter(prolific_pid=pid(6)).count() == 1
