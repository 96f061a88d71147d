"""The run page's progress bar, live in headless Chromium, fed by the JSON endpoint."""

from __future__ import annotations

import pytest

from predictions.models import ModelRun
from tests.conftest import screenshot
from tests.predictions.runhelpers import small_split

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_it_moves_the_progress_bar_and_shows_the_scores_when_the_run_ends(
    live_server, page, researcher
):
    run = ModelRun.objects.create(
        name="live", backend="random", split=small_split(), total=24, status="running", done=0
    )
    page.goto(f"{live_server.url}/accounts/login/?next=/runs/{run.pk}/")
    page.fill("input[name=username]", "rita")
    page.fill("input[name=password]", "rita-password")
    page.click("button[type=submit], input[type=submit]")
    page.wait_for_selector("#run-progress")
    ModelRun.objects.filter(pk=run.pk).update(done=12, rate=4.0)
    page.wait_for_function("() => document.getElementById('run-done').textContent === '12'")
    assert page.locator("#run-bar").get_attribute("style") == "width: 50%;"
    assert page.locator("#run-eta").text_content() == "3 s left"
    screenshot(page, "run-progress")
    ModelRun.objects.filter(pk=run.pk).update(
        done=24,
        status="succeeded",
        scores={"accuracy": 0.5, "correct": 12, "total": 24, "spearman": 0.25},
    )
    page.wait_for_selector("#run-scores strong")  # the page reloaded with the scores
    assert "0.500" in page.locator("#run-scores").text_content()
    assert page.locator("#retry-run").count() == 0 and page.locator("#cancel-run").count() == 0
