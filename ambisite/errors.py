"""Error views for the whole site (``handler500`` in ambisite/urls.py)."""

from __future__ import annotations

import sys

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
