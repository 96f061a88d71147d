"""The count of a study's free slots per batch unit that an arrival ranks setups by
(``studies.assignment``), and this web process's latest one, which arrivals a moment apart
share: within ``ARRIVAL_COUNT_SECONDS`` an arrival ranks from it, less the slots the process
took since, instead of counting again (the count, a GROUP BY over the study's slots, was a
third of an arrival's PostgreSQL time in a 500-arrival burst: docs/performance-log.md "Arrivals
a moment apart share one count"). Other processes' claims and slots that came back since are
not in it, so it only orders the setups: ``must_recount`` says when a fresh count decides
instead, and whether the study is full is only ever decided from a fresh count."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from django.conf import settings
from django.db import connection

from . import sql

NEAR_FULL = 2  # setups with this few free slots are never ranked from an older count
ROOM = 2  # nor is a study with fewer than ROOM x (batch size) setups that have free slots

# (study id, unit column) -> (when counted, the count less what this process took since)
_latest: dict[tuple[int, str], tuple[float, list[SetupFree]]] = {}
_lock = threading.Lock()


class SetupFree(NamedTuple):
    """One setup's free slots as an arrival sees them: how many, and the lowest number."""

    setup_id: int
    free: int
    low: int


def count(study_id: int, unit: str) -> list[SetupFree]:
    """Per unit: its free slots and their lowest number, counted by the database (one GROUP
    BY over the study's free slots, a row per unit), kept as the latest count when
    ``ARRIVAL_COUNT_SECONDS`` is on."""
    at = time.monotonic()
    with connection.cursor() as cursor:
        cursor.execute(sql.slot_free_per_setup(unit), [study_id])
        rows = [SetupFree(*row) for row in cursor.fetchall()]
    if settings.ARRIVAL_COUNT_SECONDS > 0:
        with _lock:
            _latest[(study_id, unit)] = (at, rows)
    return rows


def latest(study_id: int, unit: str) -> list[SetupFree] | None:
    """This process's latest count when younger than ``ARRIVAL_COUNT_SECONDS`` (less what
    ``taken`` subtracted since), else None."""
    seconds = settings.ARRIVAL_COUNT_SECONDS
    if seconds <= 0:
        return None
    with _lock:
        at, rows = _latest.get((study_id, unit), (None, []))
    return rows if at is not None and time.monotonic() - at < seconds else None


def taken(study_id: int, unit: str, units: Iterable[int]) -> None:
    """The latest count loses one free slot of each of ``units``, which a claim of this
    process took (at once, not at commit: a claim rolled back leaves its units a little
    lower for a moment, which only moves them down the ranking)."""
    units = set(units)
    with _lock:
        at, rows = _latest.get((study_id, unit), (None, []))
        if at is not None:
            rows = [s._replace(free=s.free - 1) if s.setup_id in units else s for s in rows]
            _latest[(study_id, unit)] = (at, [s for s in rows if s.free > 0])


def must_recount(free: Sequence[SetupFree], chosen: Sequence[SetupFree], need: int, k: int) -> bool:
    """Whether the ``need`` setups still wanted for a batch of ``k`` must not be ranked from
    an older count ``free`` (pure): it runs out, would take a near-full setup, or the study
    has too few setups with free slots for a batch's choice to be undone by the next (a
    batch that takes most of the setups must take exactly the right ones, or the last
    arrivals find no batch of distinct setups)."""
    if len(chosen) < need or len(free) < ROOM * k:
        return True
    return any(s.free <= NEAR_FULL for s in chosen)


def forget() -> None:
    """Drop this process's latest counts (tests: a study of an earlier test may have had the
    same id within ``ARRIVAL_COUNT_SECONDS``)."""
    with _lock:
        _latest.clear()
