"""The management commands are thin wrappers; these tests run them as a user would."""

import json

import pytest
from django.core.management import CommandError, call_command

from annotations.models import Rating, Sample
from predictions.importers import predictions_import
from tests.conftest import CONFORMANCE, DATA

pytestmark = pytest.mark.django_db
EXPECTED = json.loads((CONFORMANCE / "expected.json").read_text())


def test_import_then_reimport_reports_what_it_did(capsys):
    call_command("import_ambistory", str(DATA / "dev.json"), "--split", "dev")
    assert "588 samples and 2952 ratings imported, 98 new setups" in capsys.readouterr().out
    call_command("import_ambistory", str(DATA / "dev.json"), "--split", "dev")
    assert "0 samples and 0 ratings imported" in capsys.readouterr().out
    assert Rating.objects.count() == 2952


def test_a_broken_file_stops_the_import_naming_sample_and_field(tmp_path, dev_json):
    dev_json["17"]["choices"][0] = 6
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(dev_json))
    with pytest.raises(CommandError, match=r"sample 17: field 'choices'.*nothing was imported"):
        call_command("import_ambistory", str(broken), "--split", "dev")
    assert Sample.objects.count() == 0


def test_exports_write_files_equal_to_the_sources(tmp_path, dev_split):
    call_command("export_ambistory", "--split", "dev", "-o", str(tmp_path / "dev.json"))
    assert (tmp_path / "dev.json").read_bytes() == (DATA / "dev.json").read_bytes()
    call_command("export_reference", "--split", "dev", "-o", str(tmp_path / "ref.jsonl"))
    expected = (CONFORMANCE / "dev_solution.jsonl").read_bytes()
    assert (tmp_path / "ref.jsonl").read_bytes() == expected


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


def test_ensure_researcher_creates_a_staff_login_once(capsys, django_user_model):
    call_command("ensure_researcher", "--username", "lab", "--password", "pw-123456")
    call_command("ensure_researcher", "--username", "lab", "--password", "other")
    out = capsys.readouterr().out
    assert "lab / pw-123456 (created)" in out and "exists" in out
    user = django_user_model.objects.get(username="lab")
    assert user.is_staff and user.check_password("pw-123456")
