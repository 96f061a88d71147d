"""ambisite/db/row_locks.py: rows locked in id order, whatever order their ids came in, and
held until the transaction ends (another connection's NOWAIT lock of one fails)."""

from __future__ import annotations

import threading

import pytest
from django.db import DatabaseError, connection, connections, transaction

from ambisite.db.row_locks import locked_in_id_order
from annotations.models import Homonym


@pytest.mark.django_db(transaction=True)
def test_rows_come_back_in_id_order_with_their_fields_and_stay_locked():
    if connection.vendor != "postgresql":
        pytest.skip("row locks need PostgreSQL (CI runs it there)")
    rows = [Homonym.objects.create(form=form) for form in ("bank", "bat", "bow")]
    wanted = [rows[2].pk, rows[0].pk, rows[2].pk]  # out of order, one twice
    outcome: list = []

    def other() -> None:
        try:
            with transaction.atomic():
                Homonym.objects.select_for_update(nowait=True).filter(pk=rows[0].pk).first()
            outcome.append("locked it")
        except DatabaseError as exc:
            outcome.append(type(exc).__name__)
        finally:
            connections.close_all()

    with transaction.atomic():
        got = locked_in_id_order(Homonym.objects.filter(form__startswith="b"), wanted, "form")
        thread = threading.Thread(target=other)
        thread.start()
        thread.join(30)
    assert got == [(rows[0].pk, "bank"), (rows[2].pk, "bow")]
    assert outcome == ["OperationalError"]
    assert locked_in_id_order(Homonym, []) == []
