"""The study page's confirmed include/exclude: one participant, with the researcher's
reason recorded (on the exclusion, or on its revocation when including again)."""

from __future__ import annotations

from django.db import transaction

from annotations.models import Rater, RaterExclusion

from .models import Participant
from .services import StudyError, participant_exclude, participant_include

REASON_MAX = 2000


def is_excluded(participant: Participant) -> bool:
    return Rater.objects.excluded().filter(pk=participant.rater_id).exists()


@transaction.atomic
def participant_exclusion_set(
    *, participant: Participant, exclude: bool, reason: str, by=None
) -> bool:
    """Exclude the participant (``exclude``) or include them again, recording ``reason``.
    Returns whether their ratings count now. Raises ``StudyError`` without a reason, or
    when the participant already is as asked (the page was stale: nothing is changed, so a
    second click never undoes the first)."""
    reason = " ".join(reason.split())
    if not reason:
        raise StudyError("Give a reason: it is recorded with the decision.")
    if len(reason) > REASON_MAX:
        raise StudyError(f"The reason is too long (at most {REASON_MAX} characters).")
    Participant.objects.select_for_update().filter(pk=participant.pk).first()
    pseudonym = participant.rater.pseudonym
    if exclude == is_excluded(participant):
        state = "excluded" if exclude else "included"
        raise StudyError(f"{pseudonym} is already {state}; nothing was changed.")
    if exclude:
        participant_exclude(
            rater=participant.rater,
            source=RaterExclusion.Source.MANUAL,
            reason=reason,
            by=by,
        )
        return False
    participant_include(rater=participant.rater, by=by, reason=reason)
    return True
