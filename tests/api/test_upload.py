"""POST /api/v1/runs/upload/: a predictions jsonl becomes a scored run; bad files store nothing."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from predictions.models import ModelRun, Prediction
from tests.api.conftest import assert_refused
from tests.conftest import CONFORMANCE

pytestmark = pytest.mark.django_db

EXPECTED = json.loads((CONFORMANCE / "expected.json").read_text())
GOOD = sorted(p.name for p in CONFORMANCE.glob("pred_*.jsonl"))
BAD = sorted(p.name for p in CONFORMANCE.glob("bad_*.jsonl"))


def upload(client, split, name: str, content: bytes):
    file = SimpleUploadedFile(name, content, content_type="application/jsonl")
    return client.post(
        "/api/v1/runs/upload/", {"split": split.pk, "name": name, "file": file}, format="multipart"
    )


def test_uploaded_files_come_back_byte_for_byte_and_scored(api, dev_split):
    assert len(GOOD) == 5
    for name in GOOD:
        original = (CONFORMANCE / name).read_bytes()
        response = upload(api, dev_split, name, original)
        assert response.status_code == 201, response.content
        run = response.json()
        expected = EXPECTED[name]
        assert run["scores"]["correct"] == expected["correct"]
        assert run["scores"]["accuracy"] == expected["accuracy"]
        exported = api.get(f"/api/v1/runs/{run['id']}/predictions.jsonl")
        assert b"".join(exported.streaming_content) == original, name


def test_a_bad_file_is_refused_with_the_line_or_id_and_leaves_no_run(api, dev_split):
    assert len(BAD) == 5
    for name in BAD:
        response = upload(api, dev_split, name, (CONFORMANCE / name).read_bytes())
        assert response.status_code == 400
        (message,) = response.json()["file"]
        assert EXPECTED[name]["error"] in message, name
        if "twice" in message or "reference" in message or "number" in message:
            assert message.startswith("line "), message  # the line and the id
    assert not ModelRun.objects.exists() and not Prediction.objects.exists()


def test_it_refuses_a_file_that_is_not_utf8(api, small_split):
    response = upload(
        api, small_split, "latin.jsonl", '{"id": "0", "prediction": "é"}'.encode("latin-1")
    )
    assert response.status_code == 400 and "UTF-8" in response.json()["file"][0]
    assert not ModelRun.objects.exists()


def test_it_gives_non_researchers_nothing(non_researchers, small_split):
    content = (CONFORMANCE / "pred_majority.jsonl").read_bytes()
    for _, client, status in non_researchers:
        assert_refused(upload(client, small_split, "x.jsonl", content), status)
    assert not ModelRun.objects.exists()


def test_one_upload_service_caps_uploads_and_reads_an_open_file_uncapped(
    small_split, settings, tmp_path
):
    """predictions.io.importers.run_upload, the path of the API, the page and the command."""
    from predictions.io.importers import TooLarge, run_upload

    ids = small_split.samples.values_list("dataset_id", flat=True)
    content = "\n".join(json.dumps({"id": k, "prediction": 3}) for k in ids).encode()
    settings.UPLOAD_MAX_BYTES = len(content) - 1
    with pytest.raises(TooLarge):
        run_upload(split=small_split, name="big", file=SimpleUploadedFile("p.jsonl", content))
    assert not ModelRun.objects.exists()
    path = tmp_path / "p.jsonl"
    path.write_bytes(content)
    with path.open("rb") as handle:  # the command's file: not an upload, not capped
        run = run_upload(split=small_split, name="cli", file=handle, capped=False)
    assert (run.name, run.done, Prediction.objects.filter(run=run).count()) == ("cli", 12, 12)
