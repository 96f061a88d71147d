"""/api/upload/: the site page that uploads a predictions file as a run."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from predictions.models import ModelRun
from tests.conftest import CONFORMANCE

pytestmark = pytest.mark.django_db

URL = "/api/upload/"


def post(client, split, name):
    content = (CONFORMANCE / name).read_bytes()
    file = SimpleUploadedFile(name, content, content_type="application/jsonl")
    return client.post(URL, {"split": split.pk, "name": name, "file": file})


def test_an_uploaded_file_becomes_a_run_that_exports_identically(researcher_client, dev_split):
    assert researcher_client.get(URL).status_code == 200
    response = post(researcher_client, dev_split, "pred_boundary.jsonl")
    assert response.status_code == 302
    run = ModelRun.objects.get(name="pred_boundary.jsonl")
    assert run.scores["correct"] == 380
    page = researcher_client.get(URL).content.decode()
    assert f"/api/v1/runs/{run.pk}/predictions.jsonl" in page and "0.646" in page
    exported = researcher_client.get(f"/api/v1/runs/{run.pk}/predictions.jsonl")
    original = (CONFORMANCE / "pred_boundary.jsonl").read_bytes()
    assert b"".join(exported.streaming_content) == original
    response = post(researcher_client, dev_split, "bad_not_json.jsonl")
    assert response.status_code == 400
    assert "line 11 is not valid JSON" in response.content.decode()
    assert ModelRun.objects.count() == 1


def test_it_sends_outsiders_and_anonymous_visitors_to_the_login(
    client, outsider_client, small_split
):
    for who in (client, outsider_client):
        response = post(who, small_split, "pred_majority.jsonl")
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    assert not ModelRun.objects.exists()
