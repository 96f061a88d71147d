"""Planner statistics after a bulk write.

PostgreSQL's planner works from the statistics ``ANALYZE`` gathers. Autovacuum refreshes them
about a minute after a table changed by 10 %, so the first requests after a bulk write (an
import, a study opened: thousands of slots) are planned as if the new rows were not there:
a never-analysed table is estimated at one row, and the arrivals' per-setup count of free
slots, for example, ran as an index scan and a sort (13 ms on 9,000 rows) instead of a
sequential scan and a hash (4 ms). A release burst on Prolific comes in exactly then.
``analyze_after_commit`` refreshes them once the writing transaction has committed.
"""

from __future__ import annotations

from django.db import connection, models, transaction

# below this many new rows autovacuum's delay costs little; above it ANALYZE (a sample of
# at most 30,000 rows a table) is cheap against the write itself
BULK_ROWS = 1000


def analyze_after_commit(rows: int, *tables: type[models.Model]) -> bool:
    """``ANALYZE`` the tables of ``tables`` after the current transaction commits (at once
    outside one) when ``rows`` new rows were written, on PostgreSQL. Returns whether it
    was scheduled."""
    if rows < BULK_ROWS or connection.vendor != "postgresql":
        return False
    names = ", ".join(connection.ops.quote_name(m._meta.db_table) for m in tables)

    def analyze() -> None:
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {names}")

    transaction.on_commit(analyze)
    return True
