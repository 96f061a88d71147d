"""The export management commands: export_ratings and export_codabench."""

import csv
import json
import zipfile

import pytest
from django.core.management import CommandError, call_command

from tests.api.conftest import PARTICIPANT_PSEUDONYM

pytestmark = pytest.mark.django_db


def test_export_ratings_writes_jsonl_and_csv(tmp_path, small_split, participant, excluded_rater):
    call_command("export_ratings", "--format", "jsonl", "--output", str(tmp_path / "r.jsonl"))
    rows = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert len(rows) == 49 and rows[-1]["rater"] != excluded_rater.pseudonym
    call_command(
        "export_ratings", "--format", "csv", "--include-excluded", "-o", str(tmp_path / "r.csv")
    )
    with open(tmp_path / "r.csv", newline="") as handle:
        table = list(csv.DictReader(handle))
    assert len(table) == 61
    assert PARTICIPANT_PSEUDONYM in {row["rater"] for row in table}


def test_export_codabench_writes_a_zip_with_predictions_at_the_root(tmp_path, api, uploaded_run):
    target = tmp_path / "out" / "submission.zip"
    call_command("export_codabench", str(uploaded_run.pk), "--output", str(target))
    with zipfile.ZipFile(target) as archive:
        assert archive.namelist() == ["predictions.jsonl"]
        exported = api.get(f"/api/v1/runs/{uploaded_run.pk}/predictions.jsonl")
        assert archive.read("predictions.jsonl") == b"".join(exported.streaming_content)
    with pytest.raises(CommandError, match="does not exist"):
        call_command("export_codabench", "999", "--output", str(target))
