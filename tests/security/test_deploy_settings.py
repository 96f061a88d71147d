"""Production settings: `.env.example`'s values pass Django's deployment checks, and behind a
TLS proxy the Prolific URL shown to researchers is https."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from dotenv import dotenv_values

from ambisite.passwords import check_secret_key
from studies import services
from tests.studies.helpers import unrated_setups

ROOT = Path(__file__).resolve().parents[2]


def check_deploy(tmp_path, **changes: str) -> subprocess.CompletedProcess:
    """``manage.py check --deploy`` in a fresh process with `.env.example`'s values."""
    # The browser fixture sets DJANGO_ALLOW_ASYNC_UNSAFE in this process; production does not.
    dropped = ("DEBUG", "DATABASE_URL", "DJANGO_ALLOW_ASYNC_UNSAFE")
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    env.update({k: v for k, v in dotenv_values(ROOT / ".env.example").items() if v is not None})
    # The check must not need the example's PostgreSQL server: point at a throwaway SQLite.
    env["DATABASE_URL"] = f"sqlite:///{tmp_path / 'deploy.sqlite3'}"
    env["AMBISITE_ENV_FILE"] = ""
    env["AMBISITE_VAR_DIR"] = str(tmp_path)
    env.update(changes)
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_passes_with_the_example_production_values_and_a_real_key(tmp_path):
    done = check_deploy(tmp_path, SECRET_KEY=secrets.token_urlsafe(50))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout


def test_the_example_placeholder_key_stops_the_start_with_debug_off(tmp_path):
    done = check_deploy(tmp_path)  # .env.example as it is: its SECRET_KEY is the placeholder
    assert done.returncode != 0
    assert "SECRET_KEY is the published placeholder of .env.example" in done.stderr


def test_check_deploy_reports_the_placeholder_key_where_debug_is_on(settings):
    settings.SECRET_KEY = dotenv_values(ROOT / ".env.example")["SECRET_KEY"]
    with pytest.raises(SystemCheckError, match="ambisite.E001"):
        call_command("check", "--deploy", "--tag", "security")
    settings.SECRET_KEY = secrets.token_urlsafe(50)
    assert not check_secret_key()


@pytest.mark.django_db
def test_the_prolific_url_is_https_behind_a_tls_proxy(researcher_client, settings):
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    study = services.study_create(title="t", slug="t", samples=unrated_setups(1))
    page = researcher_client.get(
        f"/studies/{study.pk}/", HTTP_X_FORWARDED_PROTO="https", HTTP_HOST="localhost"
    )
    assert page.status_code == 200
    assert 'id="prolific-url" class="wrap">https://localhost/s/' in page.content.decode()


def test_csp_header_is_strict(client):
    response = client.get("/accounts/login/")
    policy = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "style-src 'self'" in policy
    assert "unsafe-inline" not in policy
