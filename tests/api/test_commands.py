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


@pytest.mark.parametrize(
    "flags, query, n_rows",
    [
        ((), "", 49),
        (("--include-excluded",), "include_excluded=true", 49 + 12),
        (("--include-outdated",), "include_outdated=true", 49 + 1),
        (("--include-excluded", "--include-outdated"), "include_excluded=1&include_outdated=1", 62),
    ],
)
def test_export_ratings_reads_its_two_flags_as_the_api_does(
    tmp_path, api, small_split, participant, excluded_rater, flags, query, n_rows
):
    """``--include-excluded`` also brought in ratings given on an earlier text (62 rows, not
    61): the command now takes the API's two flags with the API's meanings, and writes the
    file exports/ratings.jsonl gives for them."""
    from annotations.models import Rater, Rating

    rater = Rater.objects.create(kind=Rater.Kind.PARTICIPANT, pseudonym="S-old")
    sample = small_split.samples.order_by("position").first()
    Rating.objects.create(sample=sample, rater=rater, score=3, story_version=2)  # not current
    target = tmp_path / "r.jsonl"
    call_command("export_ratings", *flags, "-o", str(target))
    rows = [json.loads(line) for line in target.read_text().splitlines()]
    assert len(rows) == n_rows
    assert any(r["outdated"] for r in rows) == ("--include-outdated" in flags)
    assert any(r["rater_excluded"] for r in rows) == ("--include-excluded" in flags)
    response = api.get(f"/api/v1/exports/ratings.jsonl?{query}")
    assert b"".join(response.streaming_content).decode() == target.read_text()


def test_export_ratings_names_the_flag_of_a_split_that_does_not_exist(small_split):
    with pytest.raises(CommandError, match="--split: there is no split 'nope'"):
        call_command("export_ratings", "--split", "nope")


def test_export_codabench_writes_a_zip_with_predictions_at_the_root(tmp_path, api, uploaded_run):
    target = tmp_path / "out" / "submission.zip"
    call_command("export_codabench", str(uploaded_run.pk), "--output", str(target))
    with zipfile.ZipFile(target) as archive:
        assert archive.namelist() == ["predictions.jsonl"]
        exported = api.get(f"/api/v1/runs/{uploaded_run.pk}/predictions.jsonl")
        assert archive.read("predictions.jsonl") == b"".join(exported.streaming_content)
    with pytest.raises(CommandError, match="does not exist"):
        call_command("export_codabench", "999", "--output", str(target))
