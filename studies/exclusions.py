"""Who is excluded from a study: the study page's confirmed include/exclude (one participant,
with the researcher's reason recorded on the exclusion, or on its revocation when including
again) and the attention-check rule (``attention_check_graded``: excluded once fewer than the
study's ``attention_min_correct`` percent of a participant's checks can still be right)."""

from __future__ import annotations

from django.db import transaction

from annotations.models import Rater, RaterExclusion

from .errors import StudyError
from .lifecycle import participant_exclude, participant_include
from .models import AttentionAnswer, CheckQuestion, Participant

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


def below_min_correct(*, wrong: int, checks: int, min_correct: int) -> bool:
    """Whether a participant with ``wrong`` wrong answers among ``checks`` attention checks
    has fewer than ``min_correct`` percent right, whatever the checks still unanswered bring:
    ``(checks - wrong) / checks < min_correct / 100`` (pure, exact integers). 100: the first
    wrong answer; RAW-C's 50 with its two catch trials: both wrong."""
    return checks > 0 and (checks - wrong) * 100 < min_correct * checks


def attention_check_graded(
    *, participant: Participant, question: CheckQuestion, score: int, passed: bool
) -> bool:
    """A first answer to an attention check was graded (``passed``; the answer row is not
    saved yet): exclude the participant when this answer takes them below the study's
    ``attention_min_correct`` (``below_min_correct`` over the checks in their batch). Returns
    whether they were excluded now. A participant already below is not excluded twice."""
    if passed:
        return False
    answers = AttentionAnswer.objects.filter(participant=participant)
    checks = answers.count()
    wrong = answers.filter(passed=False).exclude(question=question).count() + 1
    least = participant.study.attention_min_correct
    if not below_min_correct(wrong=wrong, checks=checks, min_correct=least):
        return False
    if below_min_correct(wrong=wrong - 1, checks=checks, min_correct=least):
        return False  # excluded by an earlier answer already
    participant_exclude(
        rater=participant.rater,
        source=RaterExclusion.Source.ATTENTION_CHECK,
        reason=f"Attention checks: {wrong} of {checks} wrong (at least {least}% must be "
        f'right); "{question.homonym}": expected {question.expected}±{question.tolerance}, '
        f"answered {score}.",
    )
    return True
