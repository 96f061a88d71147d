"""``/healthz``: is this web process up and can it reach the database? For container health
checks and load balancers; one ``SELECT 1``, no session, no template."""

from __future__ import annotations

import logging

from django.db import DatabaseError, connection
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_safe

logger = logging.getLogger(__name__)

HEALTH_PATH = "/healthz"


@require_safe
def healthz(request: HttpRequest) -> HttpResponse:
    """200 "ok" when the database answers, 503 otherwise (never a stack trace)."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError as exc:
        logger.warning("Health check: database unavailable: %s", exc)
        response = HttpResponse("database unavailable\n", status=503)
    else:
        response = HttpResponse("ok\n")
    response["Content-Type"] = "text/plain; charset=utf-8"
    response["Cache-Control"] = "no-store"
    return response
