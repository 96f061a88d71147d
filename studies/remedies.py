"""A researcher's remedies against abuse of a study's arrival, each recorded as a ``Remedy``
(what, on whom, by whom and why):

* ``holds_release``: end every hold of one client (``Participant.client``) or of one time
  window of consents at once, giving the places back, and optionally exclude those
  participants (their ratings stop counting and their samples get replacements);
* ``participant_pid_reset``: free a burnt PID (someone consented first with another
  person's PID, so that person would be refused for good): the PID is kept on the row as
  ``pid_before_reset`` and the person it belongs to can arrive with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.db.models import QuerySet

from annotations.models import Rater, RaterExclusion

from .errors import StudyError
from .holds import hold_end
from .models import Participant, Remedy, Study
from .services import participant_exclude


@dataclass(frozen=True)
class Selection:
    """Whose holds a bulk remedy acts on: one client, consents in [from, to), or both."""

    client: str = ""
    started_from: datetime | None = None
    started_to: datetime | None = None

    def participants(self, study: Study) -> QuerySet[Participant]:
        """The study's participants selected; refused (``StudyError``) when nothing narrows
        the selection, so that one click never acts on a whole study."""
        if not self.client and self.started_from is None and self.started_to is None:
            raise StudyError("Name a client or a time window.")
        if self.started_from and self.started_to and self.started_from >= self.started_to:
            raise StudyError("The time window ends before it starts.")
        chosen = Participant.objects.filter(study=study)
        if self.client:
            chosen = chosen.filter(client=self.client)
        if self.started_from is not None:
            chosen = chosen.filter(started_at__gte=self.started_from)
        if self.started_to is not None:
            chosen = chosen.filter(started_at__lt=self.started_to)
        return chosen


@dataclass(frozen=True)
class Preview:
    """What a bulk remedy would touch now: holds to end, participants to exclude."""

    active: int
    includable: int


def remedy_preview(*, study: Study, selection: Selection) -> Preview:
    chosen = selection.participants(study)
    excluded = Rater.objects.excluded().values("pk")
    return Preview(
        active=chosen.filter(status__in=Participant.ACTIVE).count(),
        includable=chosen.exclude(rater_id__in=excluded).count(),
    )


_NOTHING_HELD = (
    "Nothing was changed: none of the selected participants holds a batch now (their holds "
    "ended already, e.g. by this remedy a moment ago: see the list below). No remedy is "
    "recorded."
)
_NOTHING_TO_DO = (
    "Nothing was changed: none of the selected participants holds a batch now and all of "
    "them are excluded already (e.g. by this remedy a moment ago: see the list below). No "
    "remedy is recorded."
)


@transaction.atomic
def holds_release(
    *, study: Study, selection: Selection, exclude: bool = False, reason: str, by=None
) -> Remedy:
    """End every hold of the selected participants (they are timed out; their unrated
    places go back to the pool) and, with ``exclude``, exclude each of them not excluded yet
    (``services.participant_exclude``). ``count`` on the record says how many participants
    were changed. Raises ``StudyError`` without a reason or a selection, and when it would
    change nobody (a repeated click: the first one ended those holds), so that no remedy is
    recorded that did nothing."""
    reason = _reason(reason)
    chosen = list(selection.participants(study).select_for_update().order_by("pk"))
    changed: set[int] = set()
    for participant in chosen:
        if hold_end(participant):
            changed.add(participant.pk)
    if exclude:
        excluded = set(Rater.objects.excluded().values_list("pk", flat=True))
        for participant in chosen:
            if participant.rater_id in excluded:
                continue
            participant_exclude(
                rater=participant.rater,
                source=RaterExclusion.Source.MANUAL,
                reason=f"Bulk remedy: {reason}",
                by=by,
            )
            changed.add(participant.pk)
    if not changed:
        raise StudyError(_NOTHING_TO_DO if exclude else _NOTHING_HELD)
    return Remedy.objects.create(
        study=study,
        action=Remedy.Action.EXCLUDE if exclude else Remedy.Action.RELEASE,
        client=selection.client,
        started_from=selection.started_from,
        started_to=selection.started_to,
        count=len(changed),
        reason=reason,
        by=by,
    )


@transaction.atomic
def participant_pid_reset(*, participant: Participant, reason: str, by=None) -> Remedy:
    """Free the participant's PID for the person it belongs to: the row keeps it as
    ``pid_before_reset``, its hold ends, and what it rated is excluded (it was not that
    person's). Raises ``StudyError`` for a PID reset already or without a reason."""
    reason = _reason(reason)
    participant = Participant.objects.select_for_update().get(pk=participant.pk)
    pid = participant.prolific_pid
    if not pid:
        raise StudyError("This participant's PID has been reset already.")
    hold_end(participant)
    Participant.objects.filter(pk=participant.pk).update(prolific_pid="", pid_before_reset=pid)
    if not Rater.objects.excluded().filter(pk=participant.rater_id).exists():
        participant_exclude(
            rater=participant.rater,
            source=RaterExclusion.Source.MANUAL,
            reason=f"PID reset: {reason}",
            by=by,
        )
    return Remedy.objects.create(
        study_id=participant.study_id,
        action=Remedy.Action.PID_RESET,
        client=participant.client,
        pid=pid,
        count=1,
        reason=reason,
        by=by,
    )


def _reason(reason: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise StudyError("Say why (the reason is kept with the remedy).")
    return reason
