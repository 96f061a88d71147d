"""The prediction commands (moved from annotations): export_predictions and score, run as a
user would; score against the official scorer's conformance files."""

import json

import pytest
from django.core.management import CommandError, call_command

from predictions.io.importers import predictions_import
from tests.conftest import CONFORMANCE

pytestmark = pytest.mark.django_db
EXPECTED = json.loads((CONFORMANCE / "expected.json").read_text())


def test_export_predictions_writes_the_official_format(tmp_path, dev_split):
    with open(CONFORMANCE / "pred_floats.jsonl") as handle:
        run = predictions_import(split=dev_split, name="floats", lines=handle)
    out = tmp_path / "pred.jsonl"
    call_command("export_predictions", str(run.pk), "-o", str(out))
    assert out.read_bytes() == (CONFORMANCE / "pred_floats.jsonl").read_bytes()


@pytest.mark.parametrize("name", sorted(n for n in EXPECTED if n.startswith("pred_")))
def test_score_writes_the_official_scores(tmp_path, capsys, name):
    out = tmp_path / "scores.json"
    call_command(
        "score", str(CONFORMANCE / "dev_solution.jsonl"), str(CONFORMANCE / name), str(out)
    )
    written = json.loads(out.read_text())
    assert set(written) == {"accuracy", "spearman"}
    assert written["accuracy"] == EXPECTED[name]["accuracy"]
    if EXPECTED[name]["spearman"] is None:
        assert written["spearman"] is None
    else:
        assert written["spearman"] == pytest.approx(EXPECTED[name]["spearman"], abs=1e-12)
    assert f"({EXPECTED[name]['correct']}/588)" in capsys.readouterr().out


@pytest.mark.parametrize("name", sorted(n for n in EXPECTED if n.startswith("bad_")))
def test_score_rejects_bad_files_naming_the_id_or_line(tmp_path, name):
    out = tmp_path / "scores.json"
    with pytest.raises(CommandError) as caught:
        call_command(
            "score", str(CONFORMANCE / "dev_solution.jsonl"), str(CONFORMANCE / name), str(out)
        )
    assert EXPECTED[name]["error"] in str(caught.value)
    assert not out.exists()
