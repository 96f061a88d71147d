"""Writes that touch annotation data: keyword-only, typed, atomic."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils import timezone

from .data_versions import EVERY_KIND, data_changed
from .models import Rater, RaterExclusion


@transaction.atomic
def rater_exclude(*, rater: Rater, source: str, reason: str, by=None) -> RaterExclusion:
    """Take a rater's ratings out of every aggregate; idempotent while one is active."""
    active = RaterExclusion.objects.filter(rater=rater, revoked_at__isnull=True).first()
    if active:
        return active
    try:
        with transaction.atomic():
            created = RaterExclusion.objects.create(
                rater=rater, source=source, reason=reason, created_by=by
            )
            data_changed(kind=EVERY_KIND)
            return created
    except IntegrityError:  # a concurrent request excluded the rater first
        return RaterExclusion.objects.get(rater=rater, revoked_at__isnull=True)


@transaction.atomic
def rater_include(*, rater: Rater, by=None, reason: str = "") -> int:
    """Bring a rater's ratings back; the exclusion stays on record as revoked (why, when
    ``reason`` is given)."""
    revoked = RaterExclusion.objects.filter(rater=rater, revoked_at__isnull=True).update(
        revoked_at=timezone.now(), revoked_by=by, revoke_reason=reason
    )
    if revoked:
        data_changed(kind=EVERY_KIND)
    return revoked
