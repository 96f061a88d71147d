"""The dashboards' request middleware and context processor (:mod:`dashboards.background`):
records a dashboards GET, and after its view marks a response that shows figures from before
the latest write (a notice on the page, ``stale`` in a JSON object, the ``X-Dashboard-Stale``
header) and enqueues their recomputation."""

from __future__ import annotations

import json
import logging

from django.http import HttpRequest, HttpResponse

from . import background
from .background import PAGE, Page, release

logger = logging.getLogger(__name__)


class DashboardRequestMiddleware:
    """Records a dashboards GET (its path and user) for :mod:`dashboards.cache`; after the
    view, marks a response with stale figures and enqueues their recomputation."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        token = PAGE.set(None)
        try:
            response = self.get_response(request)
            page = PAGE.get()
            if page is not None and page.as_of:
                _mark_stale(response, page)
                _send(page)
            return response
        finally:
            PAGE.reset(token)

    def process_view(self, request: HttpRequest, view_func, view_args, view_kwargs):
        match = request.resolver_match
        if request.method == "GET" and match is not None and match.app_name == "dashboards":
            user_id = request.user.pk if request.user.is_authenticated else None
            PAGE.set(Page(path=request.get_full_path(), user_id=user_id))
        return None


def _send(page: Page) -> None:
    if not page.locks:  # every stale value's recomputation is already under way
        return
    try:
        background.enqueue(page.path, page.user_id, page.locks)
    except Exception as exc:  # a broker down: the next request tries again
        logger.warning("dashboard refresh not enqueued (%s): %s", page.path, exc)
        release(page.locks)


def _mark_stale(response: HttpResponse, page: Page) -> None:
    """The ``X-Dashboard-Stale`` header (the oldest figures' time) and, in a JSON object,
    ``stale: {as_of, versions}``."""
    as_of = min(page.as_of).isoformat(timespec="seconds")
    response["X-Dashboard-Stale"] = as_of
    response["Cache-Control"] = "no-store"
    if response.get("Content-Type", "").startswith("application/json"):
        body = json.loads(response.content)
        if isinstance(body, dict):
            body["stale"] = {"as_of": as_of, "versions": page.versions}
            response.content = json.dumps(body).encode()


def stale_notice(request: HttpRequest) -> dict:
    """Context processor: ``dashboard_stale`` (the oldest figures' time) when the page
    shows figures from before the latest write."""
    page = PAGE.get()
    return {"dashboard_stale": min(page.as_of) if page is not None and page.as_of else None}
