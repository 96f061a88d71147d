"""Every researcher page on a phone (390x844) in real headless Chromium: the document never
scrolls sideways and the site menu is collapsed until tapped.

The pages come from the URL conf: every pattern that tests/test_access_matrix.py rules a
researcher page of the site (``SITE``) is requested with parameters filled from real objects.
A pattern that is not an HTML page (a JSON endpoint, a download, a POST-only action) must be
listed in ``NOT_PAGES``, so a new page cannot slip through untested.
"""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command

from tests.conftest import CONFORMANCE, ROOT, SCREENSHOTS, goto_settled, screenshot
from tests.test_access_matrix import SITE, all_routes, rule_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}

# Researcher routes that are not pages a person looks at: JSON, downloads, POST-only actions.
NOT_PAGES = {
    "dashboards:agreement_json",
    "dashboards:leaderboard_json",
    "dashboards:chart",
    "wug:graph",
    "prompts:download",
    "runs:progress",
    "runs:start",
    "runs:derive",
    "runs:cancel",
    "runs:retry",
    "runs:train",
    "studies:export",
    "studies:action",
    "studies:live",
    "studies:adaptive_outlook",
    "studies:lists_download",
    "writing:export",
}
# Pages worth seeing in more than one state (a filter that adds columns or notes).
EXTRA_QUERIES = {
    "dashboards:agreement": ["?study={study}"],
    "dashboards:annotators": ["?study={study}"],
    "dashboards:items": ["?study={study}", "?sort=sd"],
}

LONG_WORD = "A-comment-without-any-spaces-" + "x" * 160


def runs_world(researcher, split) -> dict:
    """Two scored runs with long names, a failed and a running run, a trained model."""
    from predictions.io.importers import predictions_import
    from predictions.models import ModelRun, TrainedModel

    runs = []
    for name in ("pred_random.jsonl", "pred_boundary.jsonl"):
        with open(CONFORMANCE / name, encoding="utf-8") as handle:
            runs.append(
                predictions_import(
                    split=split,
                    name=f"{name} with a long descriptive run name",
                    lines=handle,
                    created_by=researcher,
                    params={"note": "imported " + "for the phone test " * 4},
                )
            )
    failed = ModelRun.objects.create(
        name="failed",
        backend="random",
        split=split,
        status=ModelRun.Status.FAILED,
        error="Traceback (most recent call last):\n  " + "x" * 300,
    )
    running = ModelRun.objects.create(
        name="running", backend="random", split=split, status="running", total=588, done=200
    )
    trained = TrainedModel.objects.create(name="bi-encoder", split=split, log="epoch 1 " * 80)
    return {"runs": runs, "failed": failed, "running": running, "trained": trained}


def study_world():
    """An open study: one participant finished (a long comment, the nonsensical flag), one
    finished plainly, one started; returns the study and the last finisher."""
    from annotations.models import Rating
    from studies import services
    from tests.studies.helpers import open_study, pid, qualify, rate_all

    study = open_study(slug="demo", per_participant=4, ratings=2)
    finished = services.participant_arrive(study=study, pid=pid(1))
    qualify(finished)
    rate_all(finished, check_score=3)
    Rating.objects.filter(rater=finished.rater).update(comment=LONG_WORD, nonsensical=True)
    finished = services.participant_arrive(study=study, pid=pid(2))
    qualify(finished)
    rate_all(finished)
    services.participant_arrive(study=study, pid=pid(3))  # started, not finished
    return study, finished


@pytest.fixture
def world(researcher, dev_json):
    """A researcher's real week: the dev split with two scored runs, a failed run, a trained
    model, an API token, an open study with participants who finished or were screened out,
    a writing study and a usage graph."""
    from rest_framework.authtoken.models import Token

    from annotations.importers import ambistory_import, parse_ambistory
    from annotations.models import Split
    from predictions.prompts import all_prompts
    from tests.writing.helpers import writing_world

    ambistory_import(samples=parse_ambistory(dev_json), split="dev")
    split = Split.objects.get(dataset__name="ambistory", name="dev")
    made = runs_world(researcher, split)
    Token.objects.create(user=researcher)
    study, finished = study_world()
    written = writing_world(researcher)
    call_command("import_wug", str(ROOT / "data" / "wug" / "uug" / "Aufkommen"), stdout=StringIO())
    prompt = max(all_prompts(), key=lambda p: len(p.user))
    values = {  # "pk" by route-name prefix, the longer prefix first
        "pair_pk": written["pair_pk"],
        "sentence_pk": written["sentence_pk"],
        "ending_pk": written["ending_pk"],
        "study_pk": written["ending_study"].pk,
        "studies": study.pk,
        "runs:trained_model": made["trained"].pk,
        "runs": made["runs"][0].pk,
        "setup_id": split.samples.order_by("position").first().story.setup_id,
        "prompt_id": prompt.id,
        "pos": 0,
        "action": "pause",
        "participant_pk": finished.pk,
        "sample_pk": study.samples.order_by("id").first().pk,
        "slug": "rating-histogram",
        "name": "Aufkommen",
    }
    # the same page in other states, beside the one the URL conf's parameters give
    more = {
        "runs:detail": [f"/runs/{made['failed'].pk}/", f"/runs/{made['running'].pk}/"],
        "writing:preview": [f"/writing/studies/{written['sentence_study'].pk}/preview/"],
    }
    return {"values": values, "study": study.pk, "more": more}


def page_url(route, world) -> str:
    from django.urls import reverse

    kwargs = {}
    for param in route.params:
        key = param
        if param == "pk":  # by the route's name: "runs:trained_model" before "runs"
            key = next((k for k in world["values"] if route.name.startswith(k)), route.name)
        if key not in world["values"]:
            pytest.fail(f"{route.name}: give a value for {key!r} in this test's world fixture")
        kwargs[param] = world["values"][key]
    return reverse(route.name, kwargs=kwargs)


def researcher_routes():
    return [r for r in all_routes() if rule_for(r) is SITE]


def log_in(tab, live_server) -> None:
    tab.goto(f"{live_server.url}/accounts/login/?next=/studies/")
    tab.fill("input[name=username]", "rita")
    tab.fill("input[name=password]", "rita-password")
    tab.click("button[type=submit]")
    tab.wait_for_url(re.compile(r"/studies/$"))


WIDTHS = "() => [document.documentElement.scrollWidth, window.innerWidth]"
# The elements that stick out past the right edge: what to fix when the test fails.
CULPRITS = """() => [...document.querySelectorAll('body *')]
  .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5)
  .filter((e) => !e.closest('.table-scroll, pre, .scroll-x'))
  .slice(0, 5).map((e) => e.tagName + (e.id ? '#' + e.id : '') + '.' + e.className
    + ' ' + Math.round(e.getBoundingClientRect().right))"""

AXE_URL = "/static/vendor/axe-core/axe.min.js"
# A box that scrolls sideways must be reachable by keyboard (or hold something focusable).
UNFOCUSABLE_SCROLLERS = """async () => {
  const result = await axe.run(document, {runOnly: ['scrollable-region-focusable']});
  return result.violations.flatMap((v) => v.nodes.map((n) => n.target.join(' ')));
}"""


def test_the_researcher_route_list_is_complete():
    names = {r.name for r in researcher_routes()}
    assert NOT_PAGES <= names, f"stale names in NOT_PAGES: {NOT_PAGES - names}"
    assert len(names - NOT_PAGES) >= 20


def visit_every_page(tab, live_server, world) -> dict[str, list]:
    """Every researcher page (and its extra states) at phone size: what was too wide, which
    scroll boxes the keyboard cannot reach, and which NOT_PAGES entries are pages after all."""
    found: dict[str, list] = {"wide": [], "unfocusable": [], "not_pages": [], "checked": []}
    for route in researcher_routes():
        base = page_url(route, world)
        queries = [q.format(study=world["study"]) for q in EXTRA_QUERIES.get(route.name, [])]
        for url in [base, *(base + q for q in queries), *world["more"].get(route.name, [])]:
            # asked first with the session's cookies: goto() cannot open a download
            response = tab.request.get(live_server.url + url, max_redirects=0)
            is_page = response.status == 200 and "text/html" in response.headers["content-type"]
            if route.name in NOT_PAGES:
                if is_page:
                    found["not_pages"].append(f"{route.name} {url} is an HTML page: test it")
                continue
            assert is_page, f"{route.name} {url} -> {response.status}"
            goto_settled(tab, live_server.url + url)
            found["checked"].append(url)
            width, inner = tab.evaluate(WIDTHS)
            if width > inner:
                found["wide"].append((url, width, tab.evaluate(CULPRITS)))
            tab.add_script_tag(url=live_server.url + AXE_URL)  # same origin: CSP allows it
            if scrollers := tab.evaluate(UNFOCUSABLE_SCROLLERS):
                found["unfocusable"].append((url, scrollers))
            if tab.locator("#nav-toggle").count():  # pages with the researcher menu
                assert tab.locator("#nav-toggle").is_visible(), url
                assert tab.locator("#site-menu").is_hidden(), url
    return found


def check_the_menu_opens_on_tap(tab, live_server) -> None:
    goto_settled(tab, f"{live_server.url}/dashboards/items/")
    toggle = tab.locator("#nav-toggle")
    assert toggle.get_attribute("aria-expanded") == "false"
    assert tab.get_by_role("link", name="Model runs").is_hidden()
    toggle.tap()
    assert toggle.get_attribute("aria-expanded") == "true"
    assert tab.locator("#site-menu").is_visible()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(SCREENSHOTS / "mobile-menu-open.png"))  # the viewport, as seen
    tab.get_by_role("link", name="Model runs").tap()
    tab.wait_for_url(re.compile(r"/runs/$"))
    assert tab.locator("#site-menu").is_hidden()  # a new page starts with the menu closed
    screenshot(tab, "mobile-runs")


def check_the_menu_and_tables_by_keyboard(tab, live_server) -> None:
    """Tab reaches the toggle, Enter opens, Escape closes and keeps the focus there; a table
    box too wide for the phone is a tab stop, and the arrow keys scroll it."""
    toggle = tab.locator("#nav-toggle")
    tab.keyboard.press("Tab")
    tab.keyboard.press("Tab")
    assert tab.evaluate("() => document.activeElement.id") == "nav-toggle"
    tab.keyboard.press("Enter")
    assert tab.locator("#site-menu").is_visible()
    tab.keyboard.press("Escape")
    assert tab.locator("#site-menu").is_hidden()
    assert toggle.get_attribute("aria-expanded") == "false"
    assert tab.evaluate("() => document.activeElement.id") == "nav-toggle"
    goto_settled(tab, f"{live_server.url}/dashboards/")
    box = tab.locator(".table-scroll").first
    assert box.get_attribute("tabindex") == "0"
    box.focus()
    tab.keyboard.press("ArrowRight")
    tab.wait_for_function("() => document.querySelector('.table-scroll').scrollLeft > 0")


def test_every_researcher_page_fits_a_phone_and_the_menu_opens_on_tap(browser, live_server, world):
    # not is_mobile: a mobile viewport zooms out to fit a wide page, which would hide the
    # overflow this test looks for (innerWidth grows with the page)
    tab = browser.new_context(viewport=PHONE, has_touch=True).new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda e: errors.append(str(e)))
    log_in(tab, live_server)
    found = visit_every_page(tab, live_server, world)
    assert not found["not_pages"], found["not_pages"]
    assert not found["wide"], "\n".join(f"{u}: {w} {c}" for u, w, c in found["wide"])
    assert not found["unfocusable"], found["unfocusable"]
    response = tab.goto(f"{live_server.url}/no-such-page/")  # the error pages' layout too
    assert response.status == 404 and tab.evaluate(WIDTHS)[0] <= PHONE["width"]
    assert not errors, errors
    assert len(found["checked"]) >= 30
    check_the_menu_opens_on_tap(tab, live_server)
    check_the_menu_and_tables_by_keyboard(tab, live_server)
    tab.goto("about:blank")  # no request may outlive the test (SQLite shares the connection)


def test_on_a_desktop_the_menu_is_always_shown_and_the_toggle_is_not(
    browser, live_server, researcher
):
    tab = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    log_in(tab, live_server)
    assert tab.locator("#site-menu").is_visible()
    assert tab.locator("#nav-toggle").is_hidden()
    assert tab.get_by_role("link", name="Model runs").is_visible()
    goto_settled(tab, f"{live_server.url}/api/upload/")
    assert tab.locator(".table-scroll").count() >= 1
    assert tab.locator(".table-scroll[tabindex]").count() == 0  # it fits: no extra tab stop
    tab.goto("about:blank")


def test_without_javascript_the_phone_menu_is_shown_open(browser, live_server, researcher):
    tab = browser.new_context(viewport=PHONE, java_script_enabled=False).new_page()
    log_in(tab, live_server)
    assert tab.get_by_role("link", name="Model runs").is_visible()
    assert tab.locator("#nav-toggle").is_hidden()
    tab.goto("about:blank")
