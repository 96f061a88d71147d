"""Production settings: `.env.example`'s values pass Django's deployment checks, and behind a
TLS proxy the Prolific URL shown to researchers is https."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from dotenv import dotenv_values

from studies import services
from tests.studies.helpers import unrated_setups

ROOT = Path(__file__).resolve().parents[2]


def test_check_deploy_passes_with_the_example_production_values(tmp_path):
    # The browser fixture sets DJANGO_ALLOW_ASYNC_UNSAFE in this process; production does not.
    dropped = ("DEBUG", "DATABASE_URL", "DJANGO_ALLOW_ASYNC_UNSAFE")
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    env.update({k: v for k, v in dotenv_values(ROOT / ".env.example").items() if v is not None})
    # The check must not need the example's PostgreSQL server: point at a throwaway SQLite.
    env["DATABASE_URL"] = f"sqlite:///{tmp_path / 'deploy.sqlite3'}"
    env["AMBISITE_ENV_FILE"] = ""
    env["AMBISITE_VAR_DIR"] = str(tmp_path)
    done = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout


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
