"""Who may see what: researchers are active staff users; everyone else sees no data."""

from __future__ import annotations

from django.contrib.auth.decorators import user_passes_test


def is_researcher(user) -> bool:
    return bool(user and user.is_authenticated and user.is_active and user.is_staff)


researcher_required = user_passes_test(is_researcher, login_url="login")


def any_researcher():
    """A researcher account (the oldest), or None: for work done for the researchers in the
    background (the dashboards' precompute), where no request names one. The rule of
    :func:`is_researcher` as a query."""
    from django.contrib.auth import get_user_model

    found = get_user_model().objects.filter(is_active=True, is_staff=True)
    return found.order_by("pk").first()
