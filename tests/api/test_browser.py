"""The API's site pages in real headless Chromium: token page and the self-hosted Swagger UI."""

import pytest

from tests.conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def log_in(page, live_server) -> None:
    page.goto(f"{live_server.url}/accounts/login/?next=/api/token/")
    page.fill("input[name=username]", "rita")
    page.fill("input[name=password]", "rita-password")
    page.click("button[type=submit]")
    page.wait_for_selector("#no-token")


def test_a_researcher_creates_a_token_and_reads_the_swagger_ui(live_server, page, researcher):
    outside = []
    page.on(
        "request",
        lambda request: (
            outside.append(request.url) if not request.url.startswith(live_server.url) else None
        ),
    )
    log_in(page, live_server)
    page.click("#token-create")
    page.wait_for_selector("#api-token")
    assert len(page.inner_text("#api-token")) == 40
    screenshot(page, "api-token")
    page.goto(f"{live_server.url}/api/v1/docs/")
    page.wait_for_selector(".opblock-tag-section", timeout=20000)
    assert page.locator(".opblock-tag-section").count() >= 8  # datasets, ..., studies
    screenshot(page, "api-swagger-ui")
    assert outside == []  # every asset comes from this site, none from a CDN
