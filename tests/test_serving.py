"""Production serving: static files through WhiteNoise with DEBUG=0, the collected manifest
(hashed, compressed names), ``/healthz``, and the gunicorn configuration file, which one
test starts for real on a loopback port."""

from __future__ import annotations

import os
import runpy
import subprocess
import sys
import urllib.error
import urllib.request

import pytest
from django.conf import settings as django_settings
from django.core.management import call_command
from django.db import OperationalError
from django.templatetags.static import static
from django.test import Client

from tests.gunicorn_process import GUNICORN_CONF, ROOT, gunicorn

MANIFEST = {
    "STORAGES": {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": {"BACKEND": "ambisite.storage.StaticStorage"},
    },
    "WHITENOISE_USE_FINDERS": False,
    "WHITENOISE_AUTOREFRESH": False,
}


def _body(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


# --- static files, as the tests run them (plain names, found at request time) ---------------


def test_static_files_are_served_with_debug_off(client):
    assert not django_settings.DEBUG
    response = client.get("/static/css/site.css")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/css")
    assert _body(response) == (ROOT / "static" / "css" / "site.css").read_bytes()
    script = client.get("/static/vendor/chartjs-4.6.1/chart.umd.min.js")
    assert script.status_code == 200
    assert "javascript" in script["Content-Type"]


def test_a_missing_static_file_is_a_404(client):
    assert client.get("/static/css/no-such-file.css").status_code == 404
    assert client.get("/static/../ambisite/settings.py").status_code == 404


def test_static_files_are_served_before_sessions_and_the_database(client):
    # no django_db mark: any query would raise
    response = client.get("/static/js/participant.js")
    assert response.status_code == 200
    assert "sessionid" not in response.cookies


# --- the collected manifest (production) -----------------------------------------------------


@pytest.fixture(scope="module")
def collected(tmp_path_factory):
    """``collectstatic`` with the production storage, once for this module."""
    from django.test.utils import override_settings

    root = tmp_path_factory.mktemp("static")
    with override_settings(STATIC_ROOT=root, **MANIFEST):
        call_command("collectstatic", interactive=False, verbosity=0)
    return root


def test_collectstatic_writes_hashed_and_compressed_copies(collected):
    assert (collected / "staticfiles.json").exists()
    hashed = list((collected / "css").glob("site.*.css"))
    assert len(hashed) == 1
    assert (collected / "css" / f"{hashed[0].name}.gz").exists()


def test_templates_link_hashed_names_that_whitenoise_serves_for_ever(collected, settings):
    settings.STATIC_ROOT = collected
    for name, value in MANIFEST.items():
        setattr(settings, name, value)
    url = static("css/site.css")
    assert url.startswith("/static/css/site.") and url != "/static/css/site.css"
    response = Client().get(url, HTTP_ACCEPT_ENCODING="gzip")
    assert response.status_code == 200
    assert response["Content-Encoding"] == "gzip"
    assert "immutable" in response["Cache-Control"]
    assert Client().get("/static/css/no-such-file.css").status_code == 404


def test_a_static_url_is_worked_out_once_per_process(collected, settings, monkeypatch):
    from django.contrib.staticfiles.storage import staticfiles_storage

    from ambisite.storage import StaticStorage

    settings.STATIC_ROOT = collected
    for name, value in MANIFEST.items():
        setattr(settings, name, value)
    looked_up = []
    real = StaticStorage.stored_name
    monkeypatch.setattr(
        StaticStorage, "stored_name", lambda self, name: looked_up.append(name) or real(self, name)
    )
    first = static("js/participant.js")
    assert static("js/participant.js") == first and first.startswith("/static/js/participant.")
    assert looked_up == ["js/participant.js"]
    assert isinstance(staticfiles_storage._wrapped, StaticStorage)


# --- /healthz ----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_healthz_says_ok_to_any_host_over_plain_http(client, settings):
    settings.ALLOWED_HOSTS = ["ambisite.example.org"]
    settings.SECURE_SSL_REDIRECT = True
    response = client.get("/healthz", HTTP_HOST="10.1.2.3:8000")
    assert response.status_code == 200
    assert response.content == b"ok\n"
    assert response["Cache-Control"] == "no-store"


@pytest.mark.django_db
def test_healthz_answers_503_when_the_database_is_down(client, monkeypatch):
    from django.db import connection

    def broken():
        raise OperationalError("connection refused")

    monkeypatch.setattr(connection, "cursor", broken)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert b"refused" not in response.content


@pytest.mark.django_db
def test_healthz_only_reads(client):
    assert client.post("/healthz").status_code == 405


# --- gunicorn ----------------------------------------------------------------------------------


def _conf(monkeypatch, **env) -> dict:
    for name in ("WEB_CONCURRENCY", "GUNICORN_THREADS", "GUNICORN_BIND", "GUNICORN_ACCESS_LOG"):
        monkeypatch.delenv(name, raising=False)
    for name in ("GUNICORN_KEEPALIVE", "GUNICORN_WORKER_CONNECTIONS", "GUNICORN_WORKER_CLASS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(GUNICORN_CONF))


def test_gunicorn_defaults_to_two_gthread_workers_of_four_threads_on_loopback(monkeypatch):
    conf = _conf(monkeypatch)
    assert (conf["workers"], conf["threads"]) == (2, 4)
    assert conf["worker_class"] == "ambisite.gunicorn_worker.ArrivalsFirstWorker"  # gthread's
    assert conf["bind"] == ["127.0.0.1:8000"]
    assert conf["accesslog"] is None
    assert conf["max_requests"] > 0 and conf["max_requests_jitter"] > 0
    assert conf["timeout"] > 0 and conf["wsgi_app"] == "ambisite.wsgi:application"


def test_gunicorn_spreads_requests_over_its_workers_by_default(monkeypatch):
    """No keep-alive: each request is accepted anew. Our worker balances what the workers
    hold itself (tests/test_gunicorn_worker.py); gunicorn's own gthread worker holds at most
    2 x threads connections, and the ones beyond wait in the shared listen queue for the
    first worker with room (docs/performance-log.md, "The steady figure's spread")."""
    conf = _conf(monkeypatch)
    assert (conf["keepalive"], conf["worker_connections"]) == (0, 1000)
    gthread = _conf(monkeypatch, GUNICORN_WORKER_CLASS="gthread")
    assert (gthread["worker_class"], gthread["worker_connections"]) == ("gthread", 8)
    conf = _conf(monkeypatch, GUNICORN_WORKER_CLASS="gthread", GUNICORN_THREADS="6")
    assert conf["worker_connections"] == 12
    conf = _conf(monkeypatch, GUNICORN_KEEPALIVE="5", GUNICORN_WORKER_CONNECTIONS="100")
    assert (conf["keepalive"], conf["worker_connections"]) == (5, 100)


def test_gunicorn_preloads_the_app_unless_told_not_to(monkeypatch):
    assert _conf(monkeypatch)["preload_app"] is True
    assert _conf(monkeypatch, GUNICORN_PRELOAD="0")["preload_app"] is False


def test_loading_the_wsgi_module_imports_the_views_and_compiles_the_participant_templates():
    """What gunicorn's master loads before forking: the URL configuration with every view
    module, and the participant templates in the cached loader, then frozen out of the
    garbage collector's view; no database is touched (the URL points nowhere)."""
    code = (
        "import gc, sys, ambisite.wsgi as w;"
        "from django.template import engines;"
        "loader = engines['django'].engine.template_loaders[0];"
        "print('studies.views' in sys.modules, 'dashboards.views' in sys.modules,"
        " all(n in loader.get_template_cache for n in w.WARM_TEMPLATES),"
        " gc.get_freeze_count() > 50000)"
    )
    env = {
        **os.environ,
        "DEBUG": "0",
        "SECRET_KEY": "test",
        "DATABASE_URL": "postgres://nobody@127.0.0.1:1/none",
        "DJANGO_SETTINGS_MODULE": "ambisite.settings",
    }
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "True", "True", "True"], out.stdout


def test_gunicorn_takes_its_sizes_and_bind_from_the_environment(monkeypatch):
    conf = _conf(
        monkeypatch,
        WEB_CONCURRENCY="5",
        GUNICORN_THREADS="2",
        GUNICORN_BIND="0.0.0.0:8000",
        GUNICORN_ACCESS_LOG="1",
    )
    assert (conf["workers"], conf["threads"], conf["bind"]) == (5, 2, ["0.0.0.0:8000"])
    assert conf["accesslog"] == "-"
    with pytest.raises(SystemExit, match="WEB_CONCURRENCY"):
        _conf(monkeypatch, WEB_CONCURRENCY="three")


def _get(url: str) -> tuple[int, dict, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def test_gunicorn_with_the_repo_config_serves_pages_and_collected_static(collected, tmp_path):
    """DEBUG=0 with the manifest on, as in production; SQLite in a scratch folder."""
    log = tmp_path / "gunicorn.log"
    with gunicorn(
        log,
        lambda port: bool(_get(f"http://127.0.0.1:{port}/healthz")),
        drop=("DATABASE_URL",),
        timeout=60,
        DEBUG="0",
        SECRET_KEY="serving-test-key",
        STATIC_MANIFEST="1",
        STATIC_ROOT=str(collected),
        AMBISITE_VAR_DIR=str(tmp_path),
        AMBISITE_ENV_FILE="",
        WEB_CONCURRENCY="1",
        GUNICORN_THREADS="2",
        GUNICORN_LOG_LEVEL="warning",
    ) as port:
        base = f"http://127.0.0.1:{port}"
        status, _, body = _get(f"{base}/healthz")
        assert (status, body) == (200, b"ok\n")
        status, _, page = _get(f"{base}/accounts/login/")
        assert status == 200, log.read_text(errors="replace")
        css = next(p for p in page.decode().split('"') if p.startswith("/static/css/site."))
        status, headers, body = _get(base + css)
        assert status == 200 and headers["Content-Type"].startswith("text/css")
        assert headers["Connection"] == "close"  # keep-alive off: each request accepted anew
        assert body == (collected / css.removeprefix("/static/")).read_bytes()
        assert _get(f"{base}/static/css/no-such-file.css")[0] == 404
