"""Model run pages: researchers only; start, detail, progress JSON, cancel, retry."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from predictions.models import ModelRun, TrainedModel
from tests.predictions.runhelpers import small_split

pytestmark = pytest.mark.django_db


@pytest.fixture
def split():
    return small_split()


def prefixed(prefix: str, **fields) -> dict:
    """A form's POST data under its prefix (the list page's three forms each have one)."""
    return {f"{prefix}-{name}": value for name, value in fields.items()}


def queued_run(split, **fields) -> ModelRun:
    return ModelRun.objects.create(name="r", backend="random", split=split, total=24, **fields)


@pytest.mark.parametrize(
    "name, args", [("runs:list", []), ("runs:detail", [1]), ("runs:progress", [1])]
)
def test_it_keeps_run_pages_from_outsiders_and_anonymous_visitors(
    client, outsider_client, name, args
):
    url = reverse(name, args=args)
    assert client.get(url).status_code == 302
    assert outsider_client.get(url).status_code == 302


def test_it_lists_runs_with_their_scores(researcher_client, split):
    queued_run(split, status="succeeded", done=24, scores={"accuracy": 0.625, "spearman": 0.41})
    page = researcher_client.get(reverse("runs:list")).content.decode()
    assert "0.625" in page and "0.410" in page and "Start run" in page


def test_it_starts_a_run_from_the_site_and_queues_it(
    researcher_client, researcher, split, django_capture_on_commit_callbacks
):
    form = prefixed("run", name="seeded", backend="random", split=split.pk, params='{"seed": 4}')
    with django_capture_on_commit_callbacks() as callbacks:
        response = researcher_client.post(reverse("runs:start"), form)
    run = ModelRun.objects.get()
    assert response.status_code == 302 and response.url == reverse("runs:detail", args=[run.pk])
    assert (run.status, run.total, run.params, run.created_by) == (
        "queued",
        24,
        {"seed": 4},
        researcher,
    )
    assert len(callbacks) == 1  # the worker is told only after the commit


def test_it_starts_a_run_that_fits_on_two_other_splits_and_shows_them(researcher_client, split):
    small_split("train", first_homonym=4)
    small_split("test", first_homonym=8)
    form = prefixed(
        "run", backend="constant", split=split.pk, params='{"tune": true}', fit_split="train, test"
    )
    response = researcher_client.post(reverse("runs:start"), form)
    run = ModelRun.objects.get()
    assert response.status_code == 302 and run.fit_split == "train,test"
    assert run.params == {"tune": True}
    page = researcher_client.get(reverse("runs:detail", args=[run.pk])).content.decode()
    assert 'id="run-fit-split">train,test<' in page
    assert "train,test" in researcher_client.get(reverse("runs:list")).content.decode()


@pytest.mark.parametrize(
    "backend, params, fit_split, problem",
    [
        ("random", "{not json", "", "not valid JSON"),
        ("random", '{"colour": 1}', "", "colour"),
        ("constant", '{"tune": true}', "dev", "split it is scored on"),
        ("constant", '{"tune": true}', "nope", "no split &#x27;nope&#x27;"),
        ("constant", '{"tune": true, "fit_split": "train"}', "", "params.fit_split: not a"),
    ],
)
def test_it_refuses_a_bad_run_and_says_why(
    researcher_client, split, backend, params, fit_split, problem
):
    form = prefixed("run", backend=backend, split=split.pk, params=params, fit_split=fit_split)
    response = researcher_client.post(reverse("runs:start"), form)
    assert response.status_code == 400 and problem in response.content.decode()
    assert not ModelRun.objects.exists()


def test_it_reports_progress_as_json(researcher_client, split):
    run = queued_run(split, status="running", done=6, rate=2.0)
    data = json.loads(researcher_client.get(reverse("runs:progress", args=[run.pk])).content)
    assert data["done"] == 6 and data["total"] == 24 and data["percent"] == 25.0
    assert data["eta_seconds"] == 9.0 and data["finished"] is False


def test_it_shows_a_progress_bar_on_the_detail_page(researcher_client, split):
    run = queued_run(split, status="running", done=6, rate=2.0)
    page = researcher_client.get(reverse("runs:detail", args=[run.pk])).content.decode()
    assert 'role="progressbar"' in page and 'data-percent="25.0"' in page and "js/run.js" in page
    assert "Cancel" in page


def test_it_cancels_and_retries_a_run(researcher_client, split, django_capture_on_commit_callbacks):
    run = queued_run(split, status="running")
    researcher_client.post(reverse("runs:cancel", args=[run.pk]))
    run.refresh_from_db()
    assert run.status == "cancelled"
    with django_capture_on_commit_callbacks() as callbacks:
        researcher_client.post(reverse("runs:retry", args=[run.pk]))
    run.refresh_from_db()
    assert run.status == "queued" and len(callbacks) == 1


def test_it_refuses_to_retry_a_succeeded_run(researcher_client, split):
    run = queued_run(split, status="succeeded")
    response = researcher_client.post(reverse("runs:retry", args=[run.pk]), follow=True)
    assert "only failed or cancelled runs retry" in response.content.decode()
    run.refresh_from_db()
    assert run.status == "succeeded"


def test_it_queues_a_training_job_from_the_site(
    researcher_client, split, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks() as callbacks:
        researcher_client.post(
            reverse("runs:train"),
            prefixed(
                "train", split=split.pk, kind="biencoder", params='{"epochs": 1, "limit": 16}'
            ),
        )
    model = TrainedModel.objects.get()
    assert model.status == "queued" and model.params == {"epochs": 1, "limit": 16}
    assert model.kind == "biencoder" and model.name == f"biencoder on {split}"
    assert len(callbacks) == 1
    page = researcher_client.get(reverse("runs:trained_model", args=[model.pk])).content.decode()
    assert "Training log" in page


def test_it_queues_a_training_job_on_two_splits_from_the_site(researcher_client, split):
    small_split("train", first_homonym=4)
    data = prefixed("train", split=split.pk, kind="biencoder", fit_split="train,dev", params="")
    researcher_client.post(reverse("runs:train"), data)
    model = TrainedModel.objects.get()
    assert (model.fit_split, model.params, model.name) == (
        "train,dev",
        {},
        "biencoder on train+dev",
    )
    page = researcher_client.get(reverse("runs:trained_model", args=[model.pk])).content.decode()
    assert 'id="model-fit-split">train,dev<' in page


def test_it_derives_a_stacked_run_from_the_site_and_refuses_fitting_on_scored_samples(
    researcher_client, split
):
    from predictions.runs.worker import run_execute

    a, b = (run_execute(queued_run(split, params={"seed": s}).pk) for s in (1, 2))
    form = prefixed("derive", kind="stack", sources=f"{a.pk}, {b.pk}", fit="oof", params="")
    response = researcher_client.post(reverse("runs:derive"), form)
    derived = ModelRun.objects.get(backend="derived:stack")
    assert response.url == reverse("runs:detail", args=[derived.pk])
    assert derived.fitted_on["grouped_by"] == "homonym" and derived.scores["total"] == 24
    form = prefixed(
        "derive", kind="calibrate", sources=str(a.pk), fit="split", fit_sources=str(b.pk)
    )
    page = researcher_client.post(reverse("runs:derive"), form, follow=True).content.decode()
    assert "split being scored" in page
    assert ModelRun.objects.filter(backend__startswith="derived:").count() == 1
