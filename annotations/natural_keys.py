"""Rows found by natural key or bulk-created: the homonyms, senses, setups and stories that
every importer shares, safe when two imports create some of the same rows at once."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from django.db import connection, models


def get_or_create_many(
    model: type[models.Model],
    keys: dict,
    key_fields: tuple[str, ...],
    build: Callable[[tuple], models.Model],
) -> tuple[dict, set]:
    """Fetch rows by natural key and bulk-create the missing ones; returns ``{key: row}``
    and the keys whose rows this call inserted itself.

    Another import may create the same rows at once (two splits that share a new homonym
    or setup: their split locks do not order them): the insert skips a row that exists by
    then (``ON CONFLICT DO NOTHING`` waits for the other transaction) and the read back
    finds it, where a plain insert failed on the natural key's unique constraint (each
    ``model`` here has that one only). The new rows go in in the order of their keys, not
    the file's: two imports then take the unique index's entries they share in one order,
    and the second waits for the first, where in file order each could hold a row the
    other waits for (a deadlock, one import failed). Their ids are still drawn in the
    order of ``keys`` (``_new_ids``), so ids follow the file, and a row is this call's when
    the row read back has the id given to it: a count that another import committing
    meanwhile does not change."""
    found = _rows_by_key(model, key_fields, keys)
    missing = [k for k in keys if k not in found]
    if not missing:
        return found, set()
    rows = {k: build(k) for k in missing}
    ids = _new_ids(model, len(missing))
    if ids is not None:
        for row, pk in zip(rows.values(), ids):
            row.pk = pk
    model._default_manager.bulk_create(
        [rows[k] for k in sorted(missing)], batch_size=500, ignore_conflicts=True
    )
    for key, row in _rows_by_key(model, key_fields, missing).items():
        found.setdefault(key, row)
    return found, {k for k in missing if ids is None or found[k].pk == rows[k].pk}


def _rows_by_key(model: type[models.Model], key_fields: tuple[str, ...], keys: Iterable) -> dict:
    """The stored rows of ``keys`` by key (read by the first field, then matched)."""
    wanted = set(keys)
    firsts = {k[0] for k in wanted}
    rows = model._default_manager.filter(**{f"{key_fields[0]}__in": firsts})
    by_key = {tuple(getattr(row, f) for f in key_fields): row for row in rows}
    return {k: row for k, row in by_key.items() if k in wanted}


def _new_ids(model: type[models.Model], count: int) -> list[int] | None:
    """``count`` ids from the model's id sequence, ascending (PostgreSQL). None elsewhere:
    on SQLite a transaction that has read sees no other's commit before it writes (its
    write fails as locked instead), so every row it found missing is one it inserts."""
    if connection.vendor != "postgresql":
        return None
    table = connection.ops.quote_name(model._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
            [table, model._meta.pk.column, count],
        )
        return sorted(pk for (pk,) in cursor.fetchall())
