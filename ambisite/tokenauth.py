"""Token authentication that refuses guessing: failed token authentications are counted per
client IP (``TOKEN_FAILURE_RATE`` a minute, cache-backed); past the limit every token request
from that IP answers 429 until the minute is over, the right token included."""

from __future__ import annotations

from django.conf import settings
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

from ambisite import ratelimit


class ThrottledTokenAuthentication(TokenAuthentication):
    def authenticate(self, request):
        if not request.META.get("HTTP_AUTHORIZATION"):
            return None
        key = f"tokenfail:ip:{ratelimit.client_ip(request)}"
        limit = settings.TOKEN_FAILURE_RATE
        if ratelimit.over(key, limit):
            raise exceptions.Throttled(wait=ratelimit.seconds_left())
        try:
            return super().authenticate(request)
        except exceptions.AuthenticationFailed:
            if not ratelimit.allow(key, limit):
                raise exceptions.Throttled(wait=ratelimit.seconds_left()) from None
            raise
