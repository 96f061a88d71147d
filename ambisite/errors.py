"""Error views for the whole site (``handler500`` in ambisite/urls.py)."""

from __future__ import annotations

import sys

from django.views import defaults

from .middleware import database_unavailable, unavailable_response


def server_error(request, template_name: str = defaults.ERROR_500_TEMPLATE_NAME):
    """A lost database connection anywhere (middleware included) is a 503 "try again" page;
    any other error is the plain 500 page.

    Django calls this inside the ``except`` block that caught the error, so ``sys.exc_info``
    holds it.
    """
    if database_unavailable(sys.exc_info()[1]):
        return unavailable_response(request)
    return defaults.server_error(request, template_name)
