"""The database connection settings the crowd path relies on (docs/performance.md)."""

from __future__ import annotations

import pytest
from django.db import connection


@pytest.mark.django_db
def test_postgresql_prepares_a_statement_that_a_connection_repeats():
    """Server-side binding with psycopg's automatic preparation: the fifth run of the same
    statement on a connection is prepared, so PostgreSQL stops parsing and planning it."""
    if connection.vendor != "postgresql":
        pytest.skip("prepared statements are a PostgreSQL setting (CI runs it there)")
    options = connection.settings_dict["OPTIONS"]
    assert options["server_side_binding"] is True and options["prepare_threshold"] == 5
    with connection.cursor() as cursor:
        for n in range(6):
            cursor.execute("SELECT count(*) FROM django_migrations WHERE id > %s", [n])
        cursor.execute(
            "SELECT count(*) FROM pg_prepared_statements"
            " WHERE statement LIKE 'SELECT count(*) FROM django_migrations WHERE id > $1'"
        )
        assert cursor.fetchone()[0] == 1


def _checks_counted(monkeypatch) -> list[int]:
    """Record every health check (``is_usable``, Django's ``SELECT 1``) of this connection."""
    calls: list[int] = []
    real = connection.is_usable
    monkeypatch.setattr(connection, "is_usable", lambda: calls.append(1) or real())
    return calls


def _next_request() -> None:
    """What Django does between two requests on a thread: end the request (our stamp runs
    after its own clean-up), then a new request's first query checks the connection."""
    from ambisite.db.postgresql.base import request_ended

    connection.close_if_unusable_or_obsolete()
    request_ended()
    connection.close_if_unusable_or_obsolete()
    connection.close_if_health_check_failed()


@pytest.mark.django_db(transaction=True)  # no test transaction around: Django's own end of
# request would otherwise close nothing and keep the error flag
def test_a_connection_that_just_ended_a_request_cleanly_is_not_health_checked_again(
    monkeypatch,
):
    """One round trip less per request; an idle connection is checked as Django does, and
    a request that saw an error is checked at its end (ambisite/db/postgresql/base.py)."""
    if connection.vendor != "postgresql":
        pytest.skip("the backend is PostgreSQL's (CI runs it there)")
    assert connection.settings_dict["ENGINE"] == "ambisite.db.postgresql"
    assert connection.settings_dict["HEALTH_CHECK_IDLE"] == 1.0
    # a new connection: one an earlier test opened may be past DB_CONN_MAX_AGE, and the end
    # of a request closes an obsolete connection
    connection.close()
    connection.ensure_connection()
    assert connection.health_check_enabled  # DB_CONN_HEALTH_CHECKS, on by default
    calls = _checks_counted(monkeypatch)

    _next_request()
    assert calls == []  # it ended a request a moment ago

    connection.finished_ok_at -= 5  # idle for longer than the window
    connection.health_check_done = False
    connection.close_if_health_check_failed()
    assert calls == [1]

    connection.errors_occurred = True  # checked once, at the end of the failed request
    _next_request()
    assert calls == [1, 1] and connection.connection is not None

    monkeypatch.setitem(connection.settings_dict, "HEALTH_CHECK_IDLE", 0)  # Django's way
    _next_request()
    assert calls == [1, 1, 1]
