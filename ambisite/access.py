"""Who may see what: researchers are active staff users; everyone else sees no data."""

from __future__ import annotations

from django.contrib.auth.decorators import user_passes_test


def is_researcher(user) -> bool:
    return bool(user and user.is_authenticated and user.is_active and user.is_staff)


researcher_required = user_passes_test(is_researcher, login_url="login")
