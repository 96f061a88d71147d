"""``POST /s/<slug>/hold/``: the heartbeat of a participant's page before the qualification
test (static/js/participant.js, ``studies.holds.hold_seen``); ``gone=1`` is sent as the page goes
away. Answers 204, or 404 for a browser without a participant in the study."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_POST

from . import holds, selectors, services
from .views import RESUME_COOKIE


@require_POST
def heartbeat(request: HttpRequest, slug: str) -> HttpResponse:
    token = request.COOKIES.get(RESUME_COOKIE.format(slug))
    participant = (
        selectors.participant_by_token(slug, services.resume_hash(token)) if token else None
    )
    if participant is None:
        return HttpResponse(status=404)
    holds.hold_seen(participant=participant, gone=request.POST.get("gone") == "1")
    return HttpResponse(status=204)
