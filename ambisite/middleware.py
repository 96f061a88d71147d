"""Requests that no view should see."""

from __future__ import annotations

import functools
import logging
from urllib.parse import unquote_to_bytes

from csp import constants as csp_constants
from csp import middleware as csp_middleware
from csp import utils as csp_utils
from django.conf import settings
from django.core.signals import setting_changed
from django.db import InterfaceError, OperationalError
from django.dispatch import receiver
from django.http import HttpResponse, HttpResponseBadRequest, JsonResponse
from django.template import Context, loader

from .health import CACHE_ERRORS, HEALTH_PATH, healthz

logger = logging.getLogger(__name__)


class HealthCheckMiddleware:
    """``GET /healthz`` is answered here, before any other middleware: a container probe or
    a load balancer calls it by IP over plain HTTP, which host validation (ALLOWED_HOSTS)
    and the HTTPS redirect would otherwise refuse. The answer names no more than the failing
    component."""

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


def unavailable_service(exc: BaseException | None) -> str | None:
    """Which service ``exc`` says could not be reached ("database" or "cache"), or None."""
    if isinstance(exc, (OperationalError, InterfaceError)):
        return "database"
    if isinstance(exc, CACHE_ERRORS):
        return "cache"
    return None


def unavailable_response(request, service: str = "database") -> HttpResponse:
    """503 with Retry-After: a service is down for a moment; nothing was stored."""
    response: HttpResponse
    if request.path.startswith("/api/"):
        response = JsonResponse(
            {"detail": f"The {service} is briefly unavailable. Please try again shortly."},
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
    """A view that fails because PostgreSQL or the Redis cache is unreachable answers a 503
    "try again" page.

    Every write the view made ran in a transaction that failed with it, so nothing is
    half-written; the participant can simply repeat the request. Failures raised outside the
    views (a session saved in a response middleware) reach ``ambisite.errors.server_error``,
    which gives the same answer.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        service = unavailable_service(exception)
        if service is not None:
            logger.warning("%s unavailable on %s: %s", service, request.path, exception)
            return unavailable_response(request, service)
        return None


class CSPMiddleware(csp_middleware.CSPMiddleware):
    """django-csp's middleware, with the site's policy built once per process.

    The library rebuilds the header from the settings on every response (1-2% of a rating
    request's CPU). When a response carries no per-view policy (``csp_update`` and friends),
    no nonce was asked for, and no URL prefix is excluded, the header is the same every time:
    it is built once (by the library, from the same settings) and set. Anything else goes
    through the library unchanged. A change of the CSP settings (tests) builds it again."""

    _PER_RESPONSE = (
        "_csp_config",
        "_csp_update",
        "_csp_replace",
        "_csp_exempt",
        "_csp_config_ro",
        "_csp_update_ro",
        "_csp_replace_ro",
        "_csp_exempt_ro",
    )

    def process_response(self, request, response):
        headers = _static_csp_headers()
        if (
            headers is None
            or getattr(request, "_csp_nonce", None) is not None
            or any(hasattr(response, attr) for attr in self._PER_RESPONSE)
            or (settings.DEBUG and response.status_code in (404, 500))
        ):
            return super().process_response(request, response)
        for header, value in headers:
            if header not in response:
                response[header] = value
        request.csp_nonce = csp_middleware.CheckableLazyObject(self._csp_nonce_post_response)
        return response


_CSP_SETTINGS = ("CONTENT_SECURITY_POLICY", "CONTENT_SECURITY_POLICY_REPORT_ONLY")


@functools.cache
def _static_csp_headers() -> tuple[tuple[str, str], ...] | None:
    """The CSP headers every plain response gets, or None where a setting excludes URL
    prefixes (then the library decides per request)."""
    configs = [getattr(settings, name, None) or {} for name in _CSP_SETTINGS]
    if any(config.get("EXCLUDE_URL_PREFIXES") for config in configs):
        return None
    built = (
        (csp_constants.HEADER, csp_utils.build_policy()),
        (csp_constants.HEADER_REPORT_ONLY, csp_utils.build_policy(report_only=True)),
    )
    return tuple((header, value) for header, value in built if value)


@receiver(setting_changed)
def _csp_settings_changed(setting, **kwargs):
    if setting in _CSP_SETTINGS or setting == "DEBUG":
        _static_csp_headers.cache_clear()
