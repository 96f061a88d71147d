"""The page where a researcher creates, replaces or revokes their API token."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods
from rest_framework.authtoken.models import Token

from ambisite import ratelimit
from ambisite.access import researcher_required
from ambisite.tokens import token_create, token_revoke


@researcher_required
@require_http_methods(["GET", "POST"])
def api_token(request):
    if request.method == "POST":
        if request.POST.get("action") == "revoke":
            if token_revoke(user=request.user):
                messages.success(request, "Your API token was revoked.")
        elif not _may_create(request):
            return render(request, "429.html", status=429)
        else:
            token_create(user=request.user)
            messages.success(request, "A new API token was created; the old one no longer works.")
        return redirect("api-site:token")
    token = Token.objects.filter(user=request.user).first()
    return render(request, "api/token.html", {"token": token})


def _may_create(request) -> bool:
    """Count one token creation per account and per IP (``TOKEN_CREATE_RATE`` a minute)."""
    limit = settings.TOKEN_CREATE_RATE
    per_user = ratelimit.allow(f"token-create:user:{request.user.pk}", limit)
    per_ip = ratelimit.allow(f"token-create:ip:{ratelimit.client_ip(request)}", limit)
    return per_user and per_ip
