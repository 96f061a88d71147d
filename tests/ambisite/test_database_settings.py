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
