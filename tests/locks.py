"""A race made deterministic on PostgreSQL: one connection holds its transaction open until
another waits on one of its locks (a row lock, a unique index's uncommitted entry), then
commits, so the waiting write runs on after the commit every time instead of by chance."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection

from django.db import connection, connections, transaction


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


def all_wait(pids: Collection[int], *, timeout: float = 20.0) -> bool:
    """Wait until every backend of ``pids`` waits on a lock at once (whoever holds it);
    whether they all did within ``timeout`` seconds. Read from ``pg_locks``, live, as in
    ``a_backend_waits_on``."""
    wanted = sorted(set(pids))
    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while True:
            cursor.execute(
                "SELECT count(DISTINCT pid) FROM pg_locks WHERE NOT granted AND pid = ANY(%s)",
                [wanted],
            )
            if cursor.fetchone()[0] == len(wanted):
                return True
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)


def others_wait_then_commit(
    first: Callable[[], object], others: list[Callable[[], object]], *, timeout: float = 30.0
) -> list:
    """Run ``first()`` in a transaction of one thread and hold it open until each of
    ``others`` (started meanwhile, each in a thread and connection of its own) waits on a
    lock, all at once: the first's, or one another's; then commit. Two that wait on the
    first and then on each other deadlock here every time instead of by chance. Returns
    what each returned or raised: the first's, then the others' in order. Others that never
    all waited make the first's entry an AssertionError saying so."""
    started = threading.Event()
    ready = [threading.Event() for _ in others]
    pids: list[int] = []
    out: list = [None] * (1 + len(others))

    def hold() -> None:
        try:
            with transaction.atomic():
                out[0] = first()
                started.set()
                everyone = all(event.wait(timeout=timeout) for event in ready)
                if not (everyone and all_wait(pids, timeout=timeout)):
                    raise AssertionError("the others never all waited at once")
        except Exception as exc:  # noqa: BLE001 (reported by the caller's assertion)
            out[0] = exc
        finally:
            started.set()
            connections.close_all()

    def meanwhile(k: int, call: Callable[[], object]) -> None:
        try:
            pids.append(backend_pid())
            ready[k].set()
            started.wait(timeout=timeout)
            out[1 + k] = call()
        except Exception as exc:  # noqa: BLE001
            out[1 + k] = exc
        finally:
            ready[k].set()
            connections.close_all()

    threads = [threading.Thread(target=hold)]
    threads += [threading.Thread(target=meanwhile, args=kc) for kc in enumerate(others)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=2 * timeout)
    return out


def second_waits_on_first(
    first: Callable[[], object], second: Callable[[], object], *, timeout: float = 30.0
) -> list:
    """Run ``first()`` in a transaction of one thread and hold it open until ``second()``,
    started meanwhile in another thread (its own connection), waits on one of its locks;
    then commit. Returns what each returned or raised: the first's, then the second's. A
    second that never waited makes the first's entry an AssertionError saying so."""
    started = threading.Event()
    first_out: list = []
    second_out: list = []

    def hold() -> None:
        try:
            with transaction.atomic():
                first_out.append(first())
                started.set()
                if not a_backend_waits_on(timeout=timeout):  # the second, on this transaction
                    raise AssertionError("the second never waited on the first")
        except Exception as exc:  # noqa: BLE001 (reported by the caller's assertion)
            first_out[:] = [exc]
        finally:
            started.set()
            connections.close_all()

    def meanwhile() -> None:  # started while the first's writes are uncommitted
        try:
            started.wait(timeout=timeout)
            second_out.append(second())
        except Exception as exc:  # noqa: BLE001
            second_out.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=hold), threading.Thread(target=meanwhile)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=2 * timeout)
    return first_out + second_out
