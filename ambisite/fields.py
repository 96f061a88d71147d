"""Model fields every app declares the same way."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models


def who(**options: Any) -> models.ForeignKey:
    """Who did something (made, reviewed, replaced, revoked a row): an account, kept as
    null when the account is deleted so that the row and its log stay."""
    return models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, **options
    )
