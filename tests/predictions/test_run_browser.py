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


def test_after_cancel_it_keeps_polling_until_the_worker_stops_and_shows_the_final_count(
    live_server, page, researcher
):
    from django.utils import timezone

    from predictions.models import Prediction
    from predictions.runs.claims import run_stopped

    split = small_split()
    run = ModelRun.objects.create(
        name="live",
        backend="random",
        split=split,
        total=24,
        status="running",
        done=4,
        worker="w@host",
        heartbeat_at=timezone.now(),
    )
    page.goto(f"{live_server.url}/accounts/login/?next=/runs/{run.pk}/")
    page.fill("input[name=username]", "rita")
    page.fill("input[name=password]", "rita-password")
    page.click("button[type=submit], input[type=submit]")
    page.click("#cancel-run")
    page.wait_for_selector("#run-stopping:not([hidden])")
    assert page.locator("#run-status").text_content() == "Cancelled"
    assert page.locator("#retry-run").count() == 0
    # the worker's last batch lands after the cancel; then it stops
    Prediction.objects.bulk_create(
        Prediction(run=run, sample=s, score=3.0) for s in split.samples.order_by("id")[:10]
    )
    ModelRun.objects.filter(pk=run.pk).update(done=10)
    page.wait_for_function("() => document.getElementById('run-done').textContent === '10'")
    run_stopped(run.pk)
    page.wait_for_selector("#retry-run")  # reloaded once the cancel was confirmed
    assert page.locator("#run-done").text_content() == "10"
    assert page.locator("#run-stopping").is_hidden()
    assert page.locator("#retry-run").text_content() == "Retry (keeps 10 predictions)"
    assert page.locator("#run-eta-part").is_hidden() and page.locator("#run-rate-part").is_hidden()
