"""Data versions: counters that every write a dashboard figure depends on bumps in its own
transaction, so that a figure cached under its scope's version (``dashboards.cache``) is
never served once its inputs changed, in any process, whichever cache backend holds it.

A row counts the changes of one task kind's split (``split_id``), of the whole kind
(``split_id`` 0: text corrections, study samples), of every kind (kind "": a rater's
exclusion or inclusion) or of the model runs (kind :data:`RUNS`: read only by the pages
that list or score runs, so a finished run leaves the agreement, annotator, ending and
rating-chart figures cached). A scope's version (:func:`data_version`) is the sum of the
rows it depends on; rows are never deleted (``split_id`` is no foreign key), so the sum only
grows. Each bump also draws a new random ``stamp``, part of the version too: a database
restored from a backup (or a test's rolled-back transaction) counts up again through the
same sums, but not with the same stamps. The crowd path's rating saves spread over
``SHARDS`` rows per split (by participant), so concurrent participants do not queue on one
row lock.

The writers: ``annotations.services`` (exclusions), the importers (AmbiStory, RAW-C, sense
choice), ``annotations.text_versions.reference_set`` and ``studies.text_corrections``
(texts), ``annotations.admin.DataAdmin`` (the admin),
``studies.lifecycle`` (a study's samples; also the samples ``writing.review`` creates),
``studies.rating_save`` (the crowd path, in the rating's own statement on PostgreSQL:
``studies.sql.data_bump``) and ``predictions.runs.scoring`` (every run that finishes or is
imported is scored there).
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from django.db import connection, models

SHARDS = 16
EVERY_KIND = ""
# the rows of model runs' changes (a run finished, derived or imported: scored), for every
# kind: read only by a scope whose figures list or score runs (``runs=True``)
RUNS = "~runs"
WHOLE_KIND = 0  # split_id of a row that counts for every split of its kind


class DataVersion(models.Model):
    kind = models.CharField(max_length=20, blank=True)
    split_id = models.PositiveIntegerField(help_text="0: every split of the kind")
    shard = models.PositiveSmallIntegerField(default=0)
    n = models.PositiveBigIntegerField(default=0)
    stamp = models.PositiveIntegerField(default=0, help_text="drawn anew by every bump")

    class Meta:
        app_label = "annotations"
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "split_id", "shard"], name="one_data_version_row"
            )
        ]

    def __str__(self) -> str:
        return f"{self.kind or 'every kind'}/{self.split_id or 'all'}#{self.shard}: {self.n}"


def _table() -> str:
    return DataVersion._meta.db_table


def new_stamp() -> int:
    return random.getrandbits(31)


def bump_sql(source: str = "") -> str:
    """The upsert that adds 1 to a row and sets its stamp: ``INSERT ... VALUES (%s, %s,
    %s, 1, %s)`` (kind, split id, shard, :func:`new_stamp`), or with ``source`` a ``SELECT``
    of those five columns (the crowd path's statement takes the split from the sample it
    rates)."""
    rows = source or "VALUES (%s, %s, %s, 1, %s)"
    return (
        f"INSERT INTO {_table()} (kind, split_id, shard, n, stamp) {rows}"
        " ON CONFLICT (kind, split_id, shard) DO UPDATE"
        f" SET n = {_table()}.n + 1, stamp = EXCLUDED.stamp"
    )


def data_changed(*, kind: str, split_ids: Iterable[int] = (), shard: int = 0) -> None:
    """Record a change of ``kind``'s data in these splits (none given: the whole kind; kind
    "": every kind). Call it inside the write's transaction (it commits or rolls back with
    the write), once per write."""
    ids = sorted(set(split_ids)) or [WHOLE_KIND]
    with connection.cursor() as cursor:
        for split_id in ids:  # sorted: two writers lock rows in one order
            cursor.execute(bump_sql(), [kind, split_id, shard % SHARDS, new_stamp()])


def data_version(*, kind: str | None, split_ids: Iterable[int] = (), runs: bool = True) -> str:
    """The version of ``kind``'s data in these splits (none given: every split; kind None:
    every kind's data), with the model runs' changes (:data:`RUNS`) when ``runs``: it changes
    whenever a write recorded by :func:`data_changed` can change a figure of that scope that
    reads those inputs (one query)."""
    ids = sorted(set(split_ids))
    sql = f"SELECT COALESCE(SUM(n), 0), COALESCE(SUM(stamp), 0) FROM {_table()}"
    # what a row must match (all of it), besides the every-kind rows (and the runs' rows)
    rows = ["kind = %s" if kind is not None else "kind <> %s"]
    params: list[str | int] = [kind if kind is not None else RUNS]
    if ids:  # split ids are unique across kinds
        rows.append(f"split_id IN ({', '.join(['%s'] * (len(ids) + 1))})")
        params += [WHOLE_KIND, *ids]
    sql += f" WHERE kind = %s OR ({' AND '.join(rows)})"
    params.insert(0, EVERY_KIND)
    if runs:
        sql += " OR kind = %s"
        params.append(RUNS)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        n, stamps = cursor.fetchone()
        return f"{int(n)}.{int(stamps)}"
