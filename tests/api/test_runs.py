"""/api/v1/runs/: list, create, cancel and retry through the run services."""

import pytest

from predictions.models import ModelRun
from tests.api.conftest import assert_refused

pytestmark = pytest.mark.django_db


def test_it_lists_runs_with_their_official_scores(api, uploaded_run):
    body = api.get("/api/v1/runs/").json()
    (run,) = body["results"]
    assert run["id"] == uploaded_run.pk and run["backend"] == "import"
    assert run["status"] == "succeeded" and run["done"] == run["total"] == 12
    assert set(run["scores"]) >= {"accuracy", "spearman", "correct", "total"}
    assert run["created_by"] == "rita" and run["split_name"] == "dev"
    assert api.get("/api/v1/runs/", {"status": "queued"}).json()["count"] == 0
    assert api.get("/api/v1/runs/", {"backend": "import", "split": "dev"}).json()["count"] == 1
    assert api.get(f"/api/v1/runs/{uploaded_run.pk}/").json()["name"] == "uploaded"


def test_it_creates_a_queued_run(api, small_split, fixed_backend):
    payload = {"name": "three", "backend": "fixed", "params": {"value": 3}, "split": small_split.pk}
    response = api.post("/api/v1/runs/", payload, format="json")
    assert response.status_code == 201, response.content
    run = ModelRun.objects.get(pk=response.json()["id"])
    assert (run.status, run.total, run.params, run.created_by.username) == (
        "queued",
        12,
        {"value": 3},
        "rita",
    )


def test_it_creates_a_run_that_fits_on_other_splits_and_shows_them(api, small_split):
    from annotations.importers import ambistory_import, parse_ambistory
    from tests.factories import ambistory_setup

    for name in ("train", "test"):
        setup = ambistory_setup(0, homonym="crane", sentence=f"{name} crane.")
        ambistory_import(samples=parse_ambistory(setup), split=name)
    payload = {"backend": "constant", "params": {"tune": True}, "split": small_split.pk}
    response = api.post("/api/v1/runs/", {**payload, "fit_split": "train, test"}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["fit_split"], body["params"]) == ("train,test", {"tune": True})
    assert api.get(f"/api/v1/runs/{body['id']}/").json()["fit_split"] == "train,test"


@pytest.mark.parametrize(
    "extra, field, problem",
    [
        ({"fit_split": "dev"}, "detail", "cannot fit on the split it is scored on (dev)"),
        ({"fit_split": "nope"}, "detail", "no split 'nope'"),
        ({"params": {"tune": True, "fit_split": "train"}}, "params", "params.fit_split: not a"),
    ],
)
def test_it_refuses_a_fit_split_on_the_scored_split_unknown_or_inside_params(
    api, small_split, extra, field, problem
):
    payload = {"backend": "constant", "params": {"tune": True}, "split": small_split.pk, **extra}
    response = api.post("/api/v1/runs/", payload, format="json")
    assert response.status_code == 400 and problem in str(response.json()[field])
    assert not ModelRun.objects.exists()


def test_it_refuses_an_unknown_backend_or_bad_parameters_with_400(api, small_split, fixed_backend):
    for backend, params in (("nope", {}), ("fixed", {"colour": "red"})):
        payload = {"name": "x", "backend": backend, "params": params, "split": small_split.pk}
        response = api.post("/api/v1/runs/", payload, format="json")
        assert response.status_code == 400
        assert response.json()["detail"]
    assert (
        api.post("/api/v1/runs/", {"backend": "fixed", "split": 999}, format="json").status_code
        == 400
    )
    assert not ModelRun.objects.exists()


@pytest.mark.parametrize(
    "split, words",
    [
        (
            "dev",
            "Expected the id of a split (a number; GET /api/v1/splits/ lists them), received str.",
        ),
        (999999, 'No split with id "999999" (GET /api/v1/splits/ lists them).'),
    ],
)
def test_a_split_given_by_name_or_an_unknown_id_is_a_400_that_says_where_the_ids_are(
    api, small_split, split, words
):
    payload = {"backend": "constant", "params": {}, "split": split}
    response = api.post("/api/v1/runs/", payload, format="json")
    assert response.status_code == 400 and response.json()["split"] == [words]
    assert not ModelRun.objects.exists()


def test_it_cancels_and_retries_runs(api, small_split, fixed_backend):
    created = api.post(
        "/api/v1/runs/", {"backend": "fixed", "split": small_split.pk}, format="json"
    ).json()
    url = f"/api/v1/runs/{created['id']}"
    assert api.post(f"{url}/retry/").status_code == 409  # still queued
    assert api.post(f"{url}/cancel/").json()["status"] == "cancelled"
    again = api.post(f"{url}/cancel/")
    assert again.status_code == 409 and "cancelled" in again.json()["detail"]
    assert api.post(f"{url}/retry/").json()["status"] == "queued"


def test_a_run_cancelled_under_a_live_worker_is_stopping_until_the_worker_stops(api, small_split):
    from django.utils import timezone

    from predictions.runs.claims import run_stopped

    run = ModelRun.objects.create(
        name="r", backend="random", split=small_split, total=6, status="running",
        worker="w@host", heartbeat_at=timezone.now(),
    )  # fmt: skip
    body = api.post(f"/api/v1/runs/{run.pk}/cancel/").json()
    assert body["status"] == "cancelled" and body["stopping"] and body["finished_at"] is None
    run_stopped(run.pk)
    body = api.get(f"/api/v1/runs/{run.pk}/").json()
    assert not body["stopping"] and body["finished_at"] is not None


def test_it_gives_non_researchers_nothing(non_researchers, uploaded_run, fixed_backend):
    url = f"/api/v1/runs/{uploaded_run.pk}"
    payload = {"backend": "fixed", "split": uploaded_run.split_id}
    for _, client, status in non_researchers:
        assert_refused(client.get("/api/v1/runs/"), status)
        assert_refused(client.get(f"{url}/"), status)
        assert_refused(client.post("/api/v1/runs/", payload, format="json"), status)
        assert_refused(client.post(f"{url}/cancel/"), status)
        assert_refused(client.post(f"{url}/retry/"), status)
    assert ModelRun.objects.count() == 1


def test_an_unknown_prompt_is_a_400_for_any_llm_backend(api, small_split, settings):
    endpoint = {"base_url": "http://127.0.0.1:9/v1", "api_key_env": "", "models": ("*",)}
    settings.LLM_ENDPOINTS = {"t": endpoint}
    for backend, params in (
        ("openai_chat", {"endpoint": "t", "model": "m", "prompt": "nope"}),
        ("hf_causal", {"model_path": "/nonexistent", "prompt": "nope"}),
    ):
        payload = {"backend": backend, "params": params, "split": small_split.pk}
        response = api.post("/api/v1/runs/", payload, format="json")
        assert response.status_code == 400 and "unknown prompt 'nope'" in response.text
    assert not ModelRun.objects.exists()
