"""The run pages as a new user meets them: a start form whose defaults work, unique form ids,
JSON shown as JSON, a cancel that waits for the worker, and no dangling separators."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from annotations.models import Split
from predictions.models import ModelRun, Prediction
from predictions.runs.claims import run_stopped
from predictions.runs.services import run_cancel
from tests.pagehtml import form_defaults, label_problems, parse, repeated_ids
from tests.predictions.runhelpers import small_split

pytestmark = pytest.mark.django_db


@pytest.fixture
def split():
    small_split("train", first_homonym=4)
    return small_split()


def running_run(split, **fields) -> ModelRun:
    fields = {
        "status": "running",
        "worker": "w@host",
        "heartbeat_at": timezone.now(),
        "backend": "random",
        **fields,
    }
    return ModelRun.objects.create(name="r", split=split, total=24, **fields)


@pytest.fixture
def eager():
    """Celery runs a task in the calling process, as ``CELERY_TASK_ALWAYS_EAGER=1`` does."""
    from ambisite.celery import app

    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before


def test_the_untouched_start_form_starts_a_baseline_run_that_succeeds(
    researcher_client, split, eager, django_capture_on_commit_callbacks
):
    page = researcher_client.get(reverse("runs:list")).content.decode()
    data = form_defaults(page, "run-form")
    assert data["run-backend"] == "constant" and data["run-split"] == str(split.pk)
    with django_capture_on_commit_callbacks(execute=True):
        response = researcher_client.post(reverse("runs:start"), data)
    run = ModelRun.objects.get()
    assert response.status_code == 302 and run.backend == "constant" and run.split == split
    assert run.status == "succeeded" and run.done == run.total == 24
    assert run.scores["total"] == 24


def test_the_train_form_starts_on_the_train_split_with_the_bi_encoder(researcher_client, split):
    page = researcher_client.get(reverse("runs:list")).content.decode()
    data = form_defaults(page, "train-form")
    train = Split.objects.get(dataset__name="ambistory", name="train")
    assert data["train-kind"] == "biencoder"
    assert data["train-split"] == str(train.pk) != str(split.pk)


def test_it_says_which_backends_need_a_model(researcher_client, split):
    page = researcher_client.get(reverse("runs:list")).content.decode()
    assert re.search(r'<option value="biencoder"[^>]*>biencoder — needs a trained model', page)
    first = re.search(r'<select name="run-backend"[^>]*>\s*<option value="(\w+)"', page)
    assert first.group(1) == "constant"


def test_the_three_forms_repeat_no_id_and_every_label_names_its_own_field(researcher_client, split):
    page = researcher_client.get(reverse("runs:list")).content.decode()
    assert repeated_ids(page) == []
    assert label_problems(page) == []
    labels = {a["for"] for tag, a in parse(page).elements if tag == "label" and a.get("for")}
    assert {"id_run-name", "id_derive-name", "id_train-name"} <= labels
    assert {"id_run-params", "id_derive-params", "id_train-params"} <= labels


def test_a_refused_start_form_still_has_unique_ids_and_keeps_the_list(researcher_client, split):
    ModelRun.objects.create(name="older", backend="random", split=split, total=24)
    data = {"run-backend": "random", "run-split": split.pk, "run-params": "{bad"}
    response = researcher_client.post(reverse("runs:start"), data)
    page = response.content.decode()
    assert response.status_code == 400 and "older" in page and "Trained models" in page
    assert repeated_ids(page) == [] and label_problems(page) == []


def test_it_shows_parameters_and_fitted_on_as_json_that_can_be_pasted_back(
    researcher_client, split
):
    run = running_run(
        split,
        status="succeeded",
        params={"tune": True, "band": [1.5, 4.5]},
        fit_split="train",
        fitted_on={"split": "train", "split_id": 7, "n_samples": 24},
    )
    page = researcher_client.get(reverse("runs:detail", args=[run.pk])).content.decode()
    params = parse_code(page, "run-params")
    fitted = parse_code(page, "run-fitted-on")
    assert params == '{"band": [1.5, 4.5], "tune": true}'
    assert 'id="run-fit-split">train<' in page
    assert json.loads(params) == run.params and json.loads(fitted) == run.fitted_on
    assert "True" not in params and "'" not in fitted


def parse_code(page: str, element_id: str) -> str:
    import html

    found = re.search(rf'<code id="{element_id}">(.*?)</code>', page, re.S)
    return html.unescape(found.group(1))


def visible_progress_line(page: str) -> str:
    """The "n / total samples · rate · time left" line as shown (hidden parts left out)."""
    line = re.search(r'<p class="num-line"[^>]*>(.*?)</p>', page, re.S).group(1)
    line = re.sub(r'<span id="[\w-]+-part" hidden>.*?</span></span>', "", line, flags=re.S)
    return re.sub(r"<[^>]+>", "", line).strip()


def test_no_separator_dangles_when_there_is_no_rate_or_time_left(researcher_client, split):
    finished = running_run(split, status="succeeded", done=24, rate=None)
    page = researcher_client.get(reverse("runs:detail", args=[finished.pk])).content.decode()
    assert visible_progress_line(page) == "24 / 24 samples"
    rated = running_run(split, status="succeeded", done=24, rate=3.0)
    page = researcher_client.get(reverse("runs:detail", args=[rated.pk])).content.decode()
    assert visible_progress_line(page) == "24 / 24 samples · 3.0 samples/s"
    live = running_run(split, done=12, rate=4.0)
    page = researcher_client.get(reverse("runs:detail", args=[live.pk])).content.decode()
    assert visible_progress_line(page) == "12 / 24 samples · 4.0 samples/s · 3 s left"


def progress(client, run) -> dict:
    return json.loads(client.get(reverse("runs:progress", args=[run.pk])).content)


def test_a_cancelled_run_with_a_live_worker_is_stopping_until_the_worker_confirms(
    researcher_client, split
):
    run = running_run(split, done=4)
    response = researcher_client.post(reverse("runs:cancel", args=[run.pk]), follow=True)
    assert "cancel requested" in response.content.decode()
    assert 'data-finished="0"' in response.content.decode()  # the page keeps polling
    state = progress(researcher_client, run)
    assert state["status"] == "cancelled" and state["stopping"] and not state["finished"]
    assert "retry-run" not in response.content.decode()
    # the worker's last batch lands, then it stops and writes the final count
    Prediction.objects.bulk_create(
        Prediction(run=run, sample=s, score=3.0) for s in split.samples.all()[:6]
    )
    run_stopped(run.pk)
    state = progress(researcher_client, run)
    assert state["finished"] and not state["stopping"] and state["done"] == 6
    page = researcher_client.get(reverse("runs:detail", args=[run.pk])).content.decode()
    assert 'data-finished="1"' in page and "Retry (keeps 6 predictions)" in page


def test_a_queued_run_or_one_with_a_silent_worker_is_cancelled_at_once(split):
    queued = running_run(split, status="queued", worker="", heartbeat_at=None)
    assert run_cancel(run=queued).finished_at is not None
    silent = running_run(split, heartbeat_at=timezone.now() - timedelta(hours=2))
    silent = run_cancel(run=silent)
    assert silent.status == "cancelled" and silent.finished_at is not None


@pytest.mark.parametrize("status", ["succeeded", "failed", "cancelled"])
def test_cancelling_a_run_that_is_not_active_is_refused_and_changes_nothing(split, status):
    from predictions.errors import RunStateError

    run = running_run(split, status=status, finished_at=timezone.now())
    with pytest.raises(RunStateError, match="only queued or running runs can be cancelled"):
        run_cancel(run=run)
    assert ModelRun.objects.get(pk=run.pk).status == status


@pytest.mark.parametrize(
    ("backend", "again"),
    [("import", "import the file again"), ("derived:mean", "derive it again")],
)
def test_a_failed_imported_or_derived_run_offers_no_retry(researcher_client, split, backend, again):
    """Only migration 0006 fails such a run (it removed its non-finite predictions): no
    worker can make them again, so the page offers no Retry and a retry is refused, saying
    what to do; a failed run of a registry backend still offers it."""
    from predictions.errors import RunStateError
    from predictions.runs.services import run_retry

    run = running_run(
        split, backend=backend, status="failed", finished_at=timezone.now(), worker="", done=3
    )
    page = researcher_client.get(reverse("runs:detail", args=[run.pk])).content.decode()
    assert "retry-run" not in page
    with pytest.raises(RunStateError, match=again):
        run_retry(run=run)
    run.refresh_from_db()
    assert run.status == "failed"  # nothing queued
    response = researcher_client.post(reverse("runs:retry", args=[run.pk]), follow=True)
    assert again in response.content.decode()
    assert ModelRun.objects.get(pk=run.pk).status == "failed"
    worker_run = running_run(split, status="failed", finished_at=timezone.now(), worker="")
    page = researcher_client.get(reverse("runs:detail", args=[worker_run.pk])).content.decode()
    assert "retry-run" in page
