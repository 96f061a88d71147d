"""The page where a researcher creates, replaces or revokes their API token."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods
from rest_framework.authtoken.models import Token

from ambisite.access import researcher_required

from .api.tokens import token_create, token_revoke


@researcher_required
@require_http_methods(["GET", "POST"])
def api_token(request):
    if request.method == "POST":
        if request.POST.get("action") == "revoke":
            if token_revoke(user=request.user):
                messages.success(request, "Your API token was revoked.")
        else:
            token_create(user=request.user)
            messages.success(request, "A new API token was created; the old one no longer works.")
        return redirect("api-site:token")
    token = Token.objects.filter(user=request.user).first()
    return render(request, "api/token.html", {"token": token})
