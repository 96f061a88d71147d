"""The container setup (Dockerfile, docker-compose.yml, .dockerignore) keeps its production
rules: dependencies installed at build, a non-root user, health checks that gate start-up,
migrations as a one-off service, the web port on loopback, no secret in the image. When a
compose client is installed, ``compose config`` validates the file too."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
APP_SERVICES = ("migrate", "web", "worker")


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def _command(service: dict) -> str:
    command = service.get("command", "")
    return " ".join(command) if isinstance(command, list) else command


def test_every_long_running_service_has_a_health_check(compose):
    services = compose["services"]
    assert set(services) == {"db", "redis", *APP_SERVICES}
    for name in ("db", "redis", "web", "worker"):
        assert services[name]["healthcheck"]["test"], name
    assert "pg_isready" in str(services["db"]["healthcheck"]["test"])
    assert "ping" in services["redis"]["healthcheck"]["test"]
    assert "/healthz" in str(services["web"]["healthcheck"]["test"])


def test_web_and_worker_start_after_healthy_services_and_finished_migrations(compose):
    services = compose["services"]
    for name in ("web", "worker"):
        depends = services[name]["depends_on"]
        assert depends["db"]["condition"] == "service_healthy", name
        assert depends["redis"]["condition"] == "service_healthy", name
        assert depends["migrate"]["condition"] == "service_completed_successfully", name
    migrate = services["migrate"]
    assert migrate["restart"] == "no"
    assert migrate["depends_on"]["db"]["condition"] == "service_healthy"
    assert "manage.py migrate" in _command(migrate)
    assert all("migrate" not in _command(services[name]) for name in ("web", "worker"))


def test_one_image_serves_web_and_worker_with_nothing_installed_at_start(compose):
    services = compose["services"]
    images = {services[name]["image"] for name in APP_SERVICES}
    assert len(images) == 1
    assert _command(services["web"]) == "gunicorn -c ambisite/gunicorn.conf.py"
    assert _command(services["worker"]).startswith("celery -A ambisite worker")
    for name, service in services.items():
        command = _command(service)
        assert "pip install" not in command and "runserver" not in command, name


def test_the_web_port_is_published_on_loopback_only(compose):
    for name, service in compose["services"].items():
        for port in service.get("ports", []):
            assert str(port).startswith("127.0.0.1:"), (name, port)
    assert compose["services"]["web"]["ports"]


def test_secrets_come_from_the_env_file_and_are_required(compose):
    for name in APP_SERVICES:
        service = compose["services"][name]
        assert service["env_file"] == ".env"
        env = service["environment"]
        assert env["DEBUG"] == "0"
        assert re.fullmatch(r"\$\{SECRET_KEY:\?.+\}", env["SECRET_KEY"])
        assert "${POSTGRES_PASSWORD:?" in env["DATABASE_URL"]
        assert env["CACHE_URL"].startswith("redis://")  # rate limits shared by processes
    text = (ROOT / "docker-compose.yml").read_text()
    assert not re.search(r"(?i)(secret_key|password):\s*[\"']?[a-z0-9]", text)


def test_dockerignore_keeps_secrets_and_local_state_out_of_the_image():
    lines = {
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    assert {".env", ".venv", "var/", ".git", "test-artifacts/", "**/__pycache__"} <= lines


def test_dockerfile_installs_at_build_collects_static_and_runs_as_a_user():
    text = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.11-slim$", text, re.M)
    assert "pip install -r requirements.txt" in text
    assert "ARG WITH_ML=0" in text and "TORCH_INDEX_URL" in text
    assert "collectstatic --noinput" in text
    users = re.findall(r"^USER (\S+)$", text, re.M)
    assert users and users[-1] not in ("root", "0")
    assert re.search(r'^CMD \["gunicorn", "-c", "ambisite/gunicorn.conf.py"\]$', text, re.M)
    run_lines = [line for line in text.splitlines() if line.startswith("CMD")]
    assert all("pip" not in line for line in run_lines)


def _compose_client() -> list[str] | None:
    docker = shutil.which("docker")
    if docker:
        probe = subprocess.run([docker, "compose", "version"], capture_output=True, timeout=30)
        if probe.returncode == 0:
            return [docker, "compose"]
    legacy = shutil.which("docker-compose")
    return [legacy] if legacy else None


def test_compose_config_validates(tmp_path):
    client = _compose_client()
    assert client is not None, "no Compose client: `make compose-client` installs one"
    shutil.copy(ROOT / "docker-compose.yml", tmp_path / "docker-compose.yml")
    (tmp_path / ".env").write_text("SECRET_KEY=k\nPOSTGRES_PASSWORD=p\n")
    done = subprocess.run(
        [*client, "config", "-q"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (tmp_path / ".env").write_text("POSTGRES_PASSWORD=p\n")  # no SECRET_KEY: refused
    done = subprocess.run(
        [*client, "config", "-q"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert done.returncode != 0 and "SECRET_KEY" in done.stdout + done.stderr
