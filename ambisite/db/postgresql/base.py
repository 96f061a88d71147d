"""Django's PostgreSQL backend, with the connection health check skipped for a connection
that finished a request without errors moments ago.

With ``CONN_HEALTH_CHECKS`` Django runs ``SELECT 1`` before the first query of every request
on a persistent connection: one more round trip per request, a tenth of a rated item's
(the rating path is a single request with scripts). A connection that ended a request
without errors less than ``HEALTH_CHECK_IDLE`` seconds ago (``DB_HEALTH_CHECK_IDLE``,
default 1 s; 0 checks every time, as Django does) is taken as working. If PostgreSQL went
away in that moment, the request fails as one that was running would: the site's 503 "try
again" page (``ambisite.middleware.DatabaseUnavailableMiddleware``), nothing half-written,
and the connection is closed at the end of that request, so the next one reconnects. An
idle connection, or one whose request saw an error, is checked as before."""

from __future__ import annotations

import time

from django.core.signals import request_finished
from django.db import connections
from django.db.backends.postgresql import base


class DatabaseWrapper(base.DatabaseWrapper):
    finished_ok_at: float | None = None  # time.monotonic() of the last request ended cleanly

    def close_if_health_check_failed(self):
        idle = float(self.settings_dict.get("HEALTH_CHECK_IDLE", 0) or 0)
        if (
            self.connection is not None
            and getattr(self, "health_check_enabled", False)  # Django's; not in the stubs
            and not getattr(self, "health_check_done", False)
            and self.finished_ok_at is not None
            and time.monotonic() - self.finished_ok_at < idle
        ):
            self.health_check_done = True
            return
        super().close_if_health_check_failed()


def request_ended(**kwargs) -> None:
    """After Django's own end-of-request handling (which closes broken or old connections):
    note which of this thread's connections ended the request working."""
    for conn in connections.all(initialized_only=True):
        if isinstance(conn, DatabaseWrapper):
            ok = conn.connection is not None and not conn.errors_occurred
            conn.finished_ok_at = time.monotonic() if ok else None


request_finished.connect(request_ended, dispatch_uid="ambisite.db.postgresql.request_ended")
