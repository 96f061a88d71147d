"""tests/conftest.py's ``goto_settled``: a page is looked at once its scripts' fetches, and the
fetches their answers start, are answered and drawn (the phone test's wait on every page)."""

from __future__ import annotations

import time

import pytest

from tests.conftest import goto_settled

pytestmark = pytest.mark.browser

ORIGIN = "http://settle.test"  # answered by the context's routes below: no server, no network
PAGE = """<!doctype html><title>t</title><body><p id="out">waiting</p><script>
fetch('/first').then((r) => r.json()).then((a) => fetch(a.next)).then((r) => r.json())
  .then((b) => { document.getElementById('out').textContent = b.text; });
</script></body>"""


@pytest.fixture
def tab(chromium):
    context = chromium.new_context()
    answered: list[str] = []

    def answer(route):
        path = route.request.url.removeprefix(ORIGIN)
        answered.append(path)
        if path == "/":
            route.fulfill(content_type="text/html", body=PAGE)
        elif path == "/first":
            route.fulfill(content_type="application/json", body='{"next": "/second"}')
        else:
            time.sleep(0.3)  # the second answer comes well after the load event
            route.fulfill(content_type="application/json", body='{"text": "drawn"}')

    context.route(f"{ORIGIN}/**", answer)
    tab = context.new_page()
    tab.answered = answered
    yield tab
    context.close()


def test_it_returns_once_a_fetch_started_by_another_fetchs_answer_is_drawn(tab):
    response = goto_settled(tab, f"{ORIGIN}/")
    assert response.status == 200
    assert tab.answered == ["/", "/first", "/second"]
    assert tab.locator("#out").text_content() == "drawn"


def test_the_load_event_alone_comes_before_the_fetches_are_drawn(tab):
    # what goto_settled adds: the load event does not wait for the fetches (the second one
    # is left unanswered here, so the order of the events cannot matter)
    tab.route(f"{ORIGIN}/second", lambda route: None)  # the page's route before the context's
    tab.goto(f"{ORIGIN}/", wait_until="load")
    assert tab.locator("#out").text_content() == "waiting"
    assert "/second" not in tab.answered


def test_a_request_left_unanswered_fails_with_its_address(chromium):
    context = chromium.new_context()
    context.route(f"{ORIGIN}/", lambda route: route.fulfill(content_type="text/html", body=PAGE))
    context.route(f"{ORIGIN}/first", lambda route: None)  # never answered
    try:
        with pytest.raises(
            AssertionError,
            match=r"not 0.1 s quiet within 0.5 s; unanswered: \['http://settle.test/first'\]",
        ):
            goto_settled(context.new_page(), f"{ORIGIN}/", timeout_s=0.5)
    finally:
        context.close()


def test_a_page_that_never_goes_quiet_fails_saying_so(chromium):
    polling = (
        "<!doctype html><title>t</title><script>setInterval(() => fetch('/poll'), 20)</script>"
    )
    context = chromium.new_context()
    context.route(f"{ORIGIN}/", lambda route: route.fulfill(content_type="text/html", body=polling))
    context.route(f"{ORIGIN}/poll", lambda route: route.fulfill(body="{}"))
    try:
        with pytest.raises(
            AssertionError, match=r"not 0.1 s quiet within 0.5 s; unanswered: \[.*\]$"
        ):
            goto_settled(context.new_page(), f"{ORIGIN}/", timeout_s=0.5)
    finally:
        context.close()
