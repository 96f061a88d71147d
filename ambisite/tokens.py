"""API tokens of researchers (DRF authtoken: one token per user)."""

from __future__ import annotations

from django.db import transaction
from rest_framework.authtoken.models import Token


@transaction.atomic
def token_create(*, user) -> Token:
    """Give ``user`` a fresh token; an existing one stops working at once."""
    Token.objects.filter(user=user).delete()
    return Token.objects.create(user=user)


def token_revoke(*, user) -> bool:
    """Delete the user's token; returns whether there was one."""
    deleted, _ = Token.objects.filter(user=user).delete()
    return bool(deleted)
