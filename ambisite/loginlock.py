"""Login lock-out by (client, username), with slower paths for one username from many
clients and for one client trying many usernames (``AXES_HANDLER``).

django-axes compares the largest of its failure counts with one limit. Locking per username
across clients lets a stranger lock a known researcher out with a few wrong passwords, so the
fast lock is the pair (client IP, username) at ``AXES_FAILURE_LIMIT``; the same username from
any clients locks only at ``AUTH_USERNAME_FAILURE_LIMIT`` and one client trying any usernames
at ``AUTH_CLIENT_FAILURE_LIMIT``, all counted within the cool-off (``AXES_COOLOFF_TIME``).
"""

from __future__ import annotations

from datetime import datetime

from axes.attempts import get_cool_off_threshold
from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username, get_failure_limit
from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import QuerySet, Sum


def _failures(attempts: QuerySet[AccessAttempt]) -> int:
    return attempts.aggregate(n=Sum("failures_since_start"))["n"] or 0


def failure_counts(
    *, username: str | None, ip_address: str | None, since: datetime
) -> tuple[int, int, int]:
    """Failures since ``since`` for (this client, this username), this username from any
    client, and this client with any username."""
    recent = AccessAttempt.objects.filter(attempt_time__gte=since)
    return (
        _failures(recent.filter(username=username, ip_address=ip_address)),
        _failures(recent.filter(username=username)) if username else 0,
        _failures(recent.filter(ip_address=ip_address)),
    )


def is_wide_lock(by_username: int, by_client: int) -> bool:
    """Whether a username tried from many clients, or a client trying many usernames, has
    reached its (higher) limit."""
    return (
        by_username >= settings.AUTH_USERNAME_FAILURE_LIMIT
        or by_client >= settings.AUTH_CLIENT_FAILURE_LIMIT
    )


class LoginLockHandler(AxesDatabaseHandler):
    """axes' database handler with the failure count of the (client, username) pair, raised
    to the limit when a slower path (``is_wide_lock``) is reached."""

    def get_failures(self, request, credentials: dict | None = None) -> int:
        pair, by_username, by_client = failure_counts(
            username=get_client_username(request, credentials),
            ip_address=request.axes_ip_address,
            since=get_cool_off_threshold(request),
        )
        if is_wide_lock(by_username, by_client):
            return max(pair, get_failure_limit(request, credentials))
        return pair
