"""Requests that no view should see."""

from __future__ import annotations

import logging
from urllib.parse import unquote_to_bytes

from django.db import InterfaceError, OperationalError
from django.http import HttpResponse, HttpResponseBadRequest, JsonResponse
from django.template import Context, loader

from .health import HEALTH_PATH, healthz

logger = logging.getLogger(__name__)


class HealthCheckMiddleware:
    """``GET /healthz`` is answered here, before any other middleware: a container probe or
    a load balancer calls it by IP over plain HTTP, which host validation (ALLOWED_HOSTS)
    and the HTTPS redirect would otherwise refuse. The answer says nothing but "ok"."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path_info == HEALTH_PATH and request.method in ("GET", "HEAD"):
            return healthz(request)
        return self.get_response(request)


NUL_MESSAGE = "The address holds a NUL character (%00), which is never valid here."


class RefuseNulMiddleware:
    """A NUL character in the path or the query string is answered 400 at once.

    PostgreSQL cannot store or compare text holding NUL, so such a value would otherwise turn
    any lookup (``/api/v1/studies/%00/``, ``?sample=%00``) into a server error.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        query = request.META.get("QUERY_STRING", "")
        if "\x00" in request.path or b"\x00" in unquote_to_bytes(query):
            if request.path.startswith("/api/"):
                return JsonResponse({"detail": NUL_MESSAGE}, status=400)
            return HttpResponseBadRequest(NUL_MESSAGE, content_type="text/plain; charset=utf-8")
        return self.get_response(request)


RETRY_AFTER_SECONDS = 30


def database_unavailable(exc: BaseException | None) -> bool:
    """Whether ``exc`` means the database could not be reached (or the connection broke)."""
    return isinstance(exc, (OperationalError, InterfaceError))


def unavailable_response(request) -> HttpResponse:
    """503 with Retry-After: the database is down for a moment; nothing was stored."""
    response: HttpResponse
    if request.path.startswith("/api/"):
        response = JsonResponse(
            {"detail": "The database is briefly unavailable. Please try again shortly."},
            status=503,
        )
    else:
        # No context processors: they would touch the session (and so the database).
        html = loader.get_template("503.html").template.render(  # type: ignore[attr-defined]
            Context({"retry_after": RETRY_AFTER_SECONDS, "path": request.get_full_path()})
        )
        response = HttpResponse(html, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    return response


class DatabaseUnavailableMiddleware:
    """A view that fails because PostgreSQL is unreachable answers a 503 "try again" page.

    Every write the view made ran in a transaction that failed with it, so nothing is
    half-written; the participant can simply repeat the request. Failures raised outside the
    views (a session saved in a response middleware) reach ``ambisite.views.server_error``,
    which gives the same answer.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if database_unavailable(exception):
            logger.warning("Database unavailable on %s: %s", request.path, exception)
            return unavailable_response(request)
        return None
