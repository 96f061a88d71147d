"""Site-wide views outside any app."""

from __future__ import annotations

from django.conf import settings
from django.http import FileResponse, HttpRequest
from django.views.decorators.http import require_safe


@require_safe
def favicon(request: HttpRequest) -> FileResponse:
    """``/favicon.ico``, which browsers ask for whatever the page links: the site's icon
    (pages link ``static/favicon.svg``; this is the same drawing as an ICO)."""
    path = settings.BASE_DIR / "static" / "favicon.ico"
    response = FileResponse(path.open("rb"), content_type="image/x-icon")
    response["Cache-Control"] = "public, max-age=86400"
    return response
