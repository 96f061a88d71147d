"""The management commands are thin wrappers; these tests run them as a user would."""

import json

import pytest
from django.core.management import CommandError, call_command

from annotations.models import Rating, Sample
from tests.conftest import CONFORMANCE, DATA

pytestmark = pytest.mark.django_db


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


def test_ensure_researcher_creates_a_staff_login_once(capsys, django_user_model, settings):
    settings.DEBUG = False
    call_command("ensure_researcher", "--username", "lab", "--password", "Grau-Wal-7-Nebel")
    call_command("ensure_researcher", "--username", "lab", "--password", "other")
    out = capsys.readouterr().out
    assert "lab (created with the given password)" in out and "exists" in out
    assert "Grau-Wal-7-Nebel" not in out  # a stored password is never printed
    user = django_user_model.objects.get(username="lab")
    assert user.is_staff and not user.is_superuser
    assert user.check_password("Grau-Wal-7-Nebel")


def test_ensure_researcher_refuses_a_weak_password_in_production(django_user_model, settings):
    settings.DEBUG = False
    with pytest.raises(CommandError, match="password refused: .*too short"):
        call_command("ensure_researcher", "--username", "lab", "--password", "pw-1")
    assert not django_user_model.objects.filter(username="lab").exists()


def test_ensure_researcher_generates_a_password_shown_once(
    capsys, django_user_model, settings, monkeypatch
):
    settings.DEBUG = False
    monkeypatch.delenv("AMBISITE_PASSWORD", raising=False)
    call_command("ensure_researcher", "--username", "lab")
    out = capsys.readouterr().out
    password = out.split("lab / ", 1)[1].split(" ", 1)[0]
    assert len(password) >= 20 and "shown only this once" in out
    assert django_user_model.objects.get(username="lab").check_password(password)


def test_ensure_researcher_keeps_the_demo_login_with_debug(capsys, django_user_model, settings):
    settings.DEBUG = True
    call_command("ensure_researcher", "--username", "demo")
    assert "demo / ambisite-demo (created, demo)" in capsys.readouterr().out
    assert django_user_model.objects.get(username="demo").check_password("ambisite-demo")
