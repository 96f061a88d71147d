"""The strict Content-Security-Policy in real headless Chromium: the main pages log no
violation (no inline script or style anywhere, Chart.js and Swagger UI included)."""

from __future__ import annotations

import re

import pytest

from tests.studies.helpers import open_study, pid
from tests.studies.test_browser import arrive, take_qualification

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WATCH = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", function (e) {
  window.__csp.push(e.violatedDirective + " " + (e.blockedURI || "inline") + " " + e.sourceFile
                    + ":" + e.lineNumber);
});
"""


def violations(page, console: list[str]) -> list[str]:
    return page.evaluate("window.__csp") + [m for m in console if "Content Security" in m]


def test_the_main_pages_log_no_csp_violation(page, live_server, researcher, dev_split):
    console: list[str] = []
    page.add_init_script(WATCH)
    page.on("console", lambda message: console.append(message.text))
    study = open_study(4, per_participant=4, ratings=3, checks=1, slug="demo")

    arrive(page, live_server, pid(1))
    take_qualification(page, study, correct=True)
    page.wait_for_url(re.compile(r"/s/demo/rate/0/$"))
    page.click("#show-guidelines")
    page.click("#close-guidelines")
    assert violations(page, console) == [], "rating page"

    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", "rita")
    page.fill("input[name=password]", "rita-password")
    page.click("button[type=submit]")
    page.wait_for_load_state()
    pages = {
        "/studies/": "main",
        f"/studies/{study.pk}/": "#prolific-url",
        "/dashboards/": "canvas",
        "/runs/": "main",
        "/prompts/": "main",
        "/api/v1/docs/": ".opblock-tag-section",
    }
    for url, selector in pages.items():
        response = page.goto(live_server.url + url)
        assert response.status == 200, url
        assert "script-src 'self'" in response.headers["content-security-policy"], url
        page.wait_for_selector(selector, timeout=20000)
        page.wait_for_timeout(300)  # let the page's scripts (charts, fetches) run
        assert violations(page, console) == [], url
