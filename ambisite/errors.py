"""Error views for the whole site (``handler400`` and ``handler500`` in ambisite/urls.py)."""

from __future__ import annotations

import sys

from django.core.exceptions import BadRequest
from django.http import HttpResponseBadRequest, JsonResponse
from django.template import TemplateDoesNotExist, loader
from django.views import defaults

from .middleware import unavailable_response, unavailable_service


def server_error(request, template_name: str = defaults.ERROR_500_TEMPLATE_NAME):
    """A lost database or cache connection anywhere (middleware included) is a 503 "try
    again" page; any other error is the plain 500 page.

    Django calls this inside the ``except`` block that caught the error, so ``sys.exc_info``
    holds it.
    """
    service = unavailable_service(sys.exc_info()[1])
    if service is not None:
        return unavailable_response(request, service)
    return defaults.server_error(request, template_name)


def bad_request(request, exception=None, template_name: str = "400.html"):
    """400 that says what was wrong: a :class:`~django.core.exceptions.BadRequest` raised by
    our own parsers (an unknown query parameter, a malformed id) carries a message written
    for the user, shown as the JSON ``detail`` under /api/ and on JSON endpoints, else on
    the page. Other 400s (suspicious requests) say nothing about their cause."""
    detail = str(exception) if isinstance(exception, BadRequest) else ""
    if request.path.startswith("/api/") or request.path.endswith(".json"):
        return JsonResponse({"detail": detail or "Bad request."}, status=400)
    try:
        html = loader.render_to_string(template_name, {"detail": detail}, request)
    except TemplateDoesNotExist:
        return defaults.bad_request(request, exception)
    return HttpResponseBadRequest(html)
