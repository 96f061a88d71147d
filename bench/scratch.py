"""A scratch database for a bench script: next to the configured PostgreSQL database (the
same server, ``<name>_bench_<label>``), else a SQLite file under var/; created empty."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def scratch_database_url(label: str) -> str:
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith(("postgres://", "postgresql://")):
        import psycopg
        from dj_database_url import parse

        name = f"{parse(url)['NAME']}_bench_{label}"
        admin = url.rsplit("/", 1)[0] + "/postgres"
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
            conn.execute(f'CREATE DATABASE "{name}"')
        return url.rsplit("/", 1)[0] + "/" + name
    path = ROOT / "var" / f"bench_{label}.sqlite3"
    path.parent.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return f"sqlite:///{path}"
