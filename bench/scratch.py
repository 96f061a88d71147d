"""A scratch database for a bench script: next to the configured PostgreSQL database (the
same server, ``<name>_bench_<label>``), else a SQLite file under var/; created empty."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def scratch_dir() -> Path:
    """Where scratch SQLite files go: ``$BENCH_SCRATCH_DIR`` (the smoke tests' temporary
    directory, so that parallel runs never share a file), else var/."""
    path = Path(os.environ.get("BENCH_SCRATCH_DIR") or ROOT / "var")
    path.mkdir(parents=True, exist_ok=True)
    return path


def admin_url(url: str) -> str:
    """The server's ``postgres`` database, from which databases are created and dropped."""
    return url.rsplit("/", 1)[0] + "/postgres"


def scratch_name(url: str, label: str) -> str:
    """The scratch database's name on the server of ``url``."""
    from dj_database_url import parse

    return f"{parse(url)['NAME']}_bench_{label}"


def scratch_database_url(label: str) -> str:
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith(("postgres://", "postgresql://")):
        import psycopg

        name = scratch_name(url, label)
        with psycopg.connect(admin_url(url), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
            conn.execute(f'CREATE DATABASE "{name}"')
        return url.rsplit("/", 1)[0] + "/" + name
    path = scratch_dir() / f"bench_{label}.sqlite3"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return f"sqlite:///{path}"


def setup_django(url: str, **defaults: str) -> None:
    """Django on the scratch database ``url``, migrated; ``defaults`` are environment
    variables set where the environment does not set them (a script's ``DEBUG``, say)."""
    os.environ["DATABASE_URL"] = url
    for name, value in defaults.items():
        os.environ.setdefault(name, value)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ambisite.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def drop_scratch(url: str) -> None:
    """Drop what :func:`scratch_database_url` created (Django's connections closed first)."""
    from django.db import connections

    connections.close_all()
    if url.startswith("sqlite:///"):
        for suffix in ("", "-wal", "-shm"):
            Path(f"{url[len('sqlite:///') :]}{suffix}").unlink(missing_ok=True)
        return
    import psycopg

    name = url.rsplit("/", 1)[1]
    with psycopg.connect(admin_url(url), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')


def smoke_dir(name: str) -> Path:
    """A fresh folder for a ``--smoke`` run's outputs and caches (never bench/results/)."""
    import tempfile

    base = os.environ.get("BENCH_SCRATCH_DIR")
    if base:
        path = Path(base) / name
        path.mkdir(parents=True, exist_ok=True)
        return path
    return Path(tempfile.mkdtemp(prefix=f"bench-{name}-"))


def smoke_subset(samples: list[dict], homonyms: int = 6) -> list[dict]:
    """The samples of the first ``homonyms`` homonyms (by name): whole groups, so grouped
    folds still split by homonym."""
    keep = sorted({str(s["homonym"]) for s in samples})[:homonyms]
    return [s for s in samples if str(s["homonym"]) in keep]
