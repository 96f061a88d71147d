"""/api/v1/runs/{id}/predictions.jsonl and /codabench.zip."""

import io
import json
import zipfile

import pytest

from predictions.models import ModelRun, Prediction
from tests.api.conftest import assert_refused

pytestmark = pytest.mark.django_db


def streamed(response) -> bytes:
    assert response.status_code == 200, response.content
    return b"".join(response.streaming_content)


def test_it_exports_an_uploaded_run_as_it_was_uploaded(api, uploaded_run, small_split):
    body = streamed(api.get(f"/api/v1/runs/{uploaded_run.pk}/predictions.jsonl"))
    lines = body.decode().splitlines()
    assert lines[0] == '{"id": "0", "prediction": 3.5}' and len(lines) == 12


def test_it_exports_a_computed_run_from_its_scores(api, small_split):
    run = ModelRun.objects.create(name="m", backend="fixed", split=small_split, status="succeeded")
    sample = small_split.samples.get(dataset_id="1")
    Prediction.objects.create(run=run, sample=sample, score=2.25, raw_output="Answer: 2")
    body = streamed(api.get(f"/api/v1/runs/{run.pk}/predictions.jsonl"))
    assert body == b'{"id": "1", "prediction": 2.25}\n'


def test_the_codabench_zip_holds_predictions_jsonl_at_its_root(api, uploaded_run):
    response = api.get(f"/api/v1/runs/{uploaded_run.pk}/codabench.zip")
    assert response["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(streamed(response)))
    assert archive.namelist() == ["predictions.jsonl"]
    plain = streamed(api.get(f"/api/v1/runs/{uploaded_run.pk}/predictions.jsonl"))
    assert archive.read("predictions.jsonl") == plain
    assert json.loads(plain.splitlines()[-1]) == {"id": "11", "prediction": 3.5}


def test_it_answers_404_for_an_unknown_run(api, db):
    assert api.get("/api/v1/runs/999/predictions.jsonl").status_code == 404
    assert api.get("/api/v1/runs/999/codabench.zip").status_code == 404


def test_it_gives_non_researchers_nothing(non_researchers, uploaded_run):
    for _, client, status in non_researchers:
        for name in ("predictions.jsonl", "codabench.zip"):
            assert_refused(client.get(f"/api/v1/runs/{uploaded_run.pk}/{name}"), status)
