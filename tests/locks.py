"""A race made deterministic on PostgreSQL: one connection holds its transaction open until
another waits on one of its locks (a row lock, a unique index's uncommitted entry), then
commits, so the waiting write runs on after the commit every time instead of by chance."""

from __future__ import annotations

import time

from django.db import connection


def backend_pid() -> int:
    """The PostgreSQL backend id of this thread's connection (``a_backend_waits_on``'s
    ``holder`` when another thread polls for it)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def a_backend_waits_on(holder: int | None = None, *, timeout: float = 20.0) -> bool:
    """Wait until another connection waits on a lock that the backend ``holder`` holds (this
    thread's own connection by default); whether one did within ``timeout`` seconds.
    ``pg_blocking_pids`` names the holder, so a lock wait of anything else (another test's
    database, an autovacuum) never counts. The waiters are read from ``pg_locks``, which is
    live: ``pg_stat_activity`` is read once per transaction, so a holder polling it inside
    its own transaction never saw a backend that connected after its first poll."""
    if holder is None:
        holder = backend_pid()
    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while True:
            cursor.execute(
                "SELECT EXISTS (SELECT 1 FROM pg_locks"
                " WHERE NOT granted AND %s = ANY(pg_blocking_pids(pid)))",
                [holder],
            )
            if cursor.fetchone()[0]:
                return True
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)
