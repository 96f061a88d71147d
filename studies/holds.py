"""Holds that scale with trust: who may hold a batch of a study, and for how long.

A consent reserves a batch (``assignment.batch_reserve``). Until the qualification test is
passed that batch is *held*, and a stranger could otherwise hold every place with made-up
PIDs. So, per client (``ambisite.ratelimit.client_key``: an IPv4 address, an IPv6 /64) and
study, with settings documented in docs/studies.md "Holds":

* at most ``HOLD_UNQUALIFIED_PER_CLIENT`` unqualified holds at once, and at most
  ``HOLD_TOTAL_PER_CLIENT`` holds in all (qualified ones included); checked under a lock per
  (study, client), so concurrent consents from one client cannot pass the cap together;
* the study's own cap (``Study.max_unqualified``) counts each client at most up to its cap
  and below the study's, so no single client can fill it (``unqualified_count``);
* each further hold of a client is half as long as the one before (``hold_seconds``), never
  under ``HOLD_MIN_SECONDS``;
* a page that sends heartbeats (static/js/participant.js) keeps its hold only while it does:
  none for ``HOLD_IDLE_SECONDS``, or a "page closed" beacon ``HOLD_GONE_SECONDS`` ago, and the hold
  lapses (a browser without scripts keeps the plain hold); a failed qualification test
  releases the batch at once (``services.participant_qualify``).

A hold that lapsed before its participant qualified also frees the PID (``pid_owner``): the
person whose PID a stranger used can then arrive with it, and nobody ever answered an item
under it. A qualified impostor's PID is freed by the researcher (``remedies``).
"""

from __future__ import annotations

import zlib
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import BooleanField, Q
from django.db.models.expressions import RawSQL
from django.utils import timezone

from . import selectors, sql
from .assignment import slots_release
from .errors import ClientHoldsFull
from .models import Participant, Study

STARTED = Participant.Status.STARTED


def hold_seconds(full: float, held: int, floor: float) -> float:
    """How long a client's next unqualified hold lasts when it already holds ``held`` places:
    ``full`` halved for each, never under ``floor`` (nor over ``full``)."""
    return max(min(floor, full), full / 2 ** max(held, 0))


def _held_params(study: Study, now: datetime) -> list:
    """The parameters of ``sql.unqualified_held`` at ``now``."""
    since = now - timedelta(minutes=study.hold_minutes(False))
    return [_adapt(since), _adapt(now), _adapt(now)]


def _holding_params(study: Study, now: datetime) -> list:
    since = now - timedelta(minutes=study.hold_minutes(True))
    return [*_held_params(study, now), _adapt(since)]


def _adapt(when: datetime):
    return connection.ops.adapt_datetimefield_value(when)


def holding(study: Study, now: datetime) -> Q:
    """Participants of ``study`` whose batch is held at ``now`` (qualified or not; before
    qualifying, ``Participant.is_late``'s rule): the one spelling in SQL, ``sql.holding``,
    which the counts below use as it is."""
    return Q(RawSQL(sql.holding(), _holding_params(study, now), output_field=BooleanField()))


def late(study: Study, now: datetime) -> Q:
    """Active participants past their hold: the ones ``participants_expire`` times out."""
    return Q(status__in=Participant.ACTIVE) & ~holding(study, now)


def unqualified_count(study: Study, now: datetime | None = None) -> int:
    """Holds of the study before qualifying, as its cap (``Study.max_unqualified``) counts
    them: each client up to its own cap and below the study's, so that no client alone can
    fill it (a participant without a recorded client counts alone; with the per-client cap
    off every hold counts). Every consent asks: one hand-written statement."""
    now = now or timezone.now()
    cap = min(settings.HOLD_UNQUALIFIED_PER_CLIENT, max(study.max_unqualified - 1, 1))
    with connection.cursor() as cursor:
        cursor.execute(sql.unqualified_per_client(), [study.pk, *_held_params(study, now)])
        rows = cursor.fetchall()
    return sum(n if not client or cap <= 0 else min(n, cap) for client, n in rows)


def _lock(study: Study, client: str) -> None:
    """Queue the consents of one client to one study until the transaction ends."""
    if connection.vendor == "postgresql":
        key = zlib.crc32(client.encode()) - 2**31  # into int4
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [study.pk, key])


def hold_admit(*, study: Study, client: str, now: datetime | None = None) -> datetime:
    """Until when a new participant of ``client`` may hold a batch before qualifying; raises
    ``ClientHoldsFull`` when the client holds as many places as it may. Call it in the
    transaction that creates the participant: the check holds until that commits. A
    participant without a client (a service called directly) gets the study's full hold."""
    now = now or timezone.now()
    full = study.hold_minutes(False) * 60
    if not client:
        return now + timedelta(seconds=full)
    _lock(study, client)
    with connection.cursor() as cursor:
        cursor.execute(sql.client_holds(), [study.pk, client, *_holding_params(study, now)])
        total, unqualified = cursor.fetchone()
    unqualified_cap, total_cap = (
        settings.HOLD_UNQUALIFIED_PER_CLIENT,
        settings.HOLD_TOTAL_PER_CLIENT,
    )
    if (0 < unqualified_cap <= unqualified) or (0 < total_cap <= total):
        raise ClientHoldsFull("Many people are starting this study from your network right now.")
    seconds = hold_seconds(full, total, settings.HOLD_MIN_SECONDS)
    return now + timedelta(seconds=seconds)


def hold_seen(*, participant: Participant, gone: bool = False) -> bool:
    """A heartbeat from the page of a participant who has not qualified yet: the hold lasts
    ``HOLD_IDLE_SECONDS`` from now, or ``HOLD_GONE_SECONDS`` when the page says it was closed
    (a page of the study that opens next sends a heartbeat again). A hold that has lapsed
    already stays lapsed. Returns whether the hold is still there."""
    now = timezone.now()
    idle = settings.HOLD_IDLE_SECONDS
    if idle <= 0:
        return participant.status == STARTED
    seconds = min(settings.HOLD_GONE_SECONDS, idle) if gone else idle
    return bool(
        Participant.objects.filter(pk=participant.pk, status=STARTED)
        .filter(Q(lapse_at__isnull=True) | Q(lapse_at__gte=now))
        .update(lapse_at=now + timedelta(seconds=seconds))
    )


def hold_end(participant: Participant) -> bool:
    """Time the participant out and give their unrated slots back, once (a participant no
    longer active is left as it is). Returns whether it happened here."""
    changed = Participant.objects.filter(pk=participant.pk, status__in=Participant.ACTIVE).update(
        status=Participant.Status.TIMED_OUT
    )
    if changed:
        slots_release(participant)
        participant.status = Participant.Status.TIMED_OUT
    return bool(changed)


def pid_taken(study: Study, pid: str) -> bool:
    """Whether ``pid`` belongs to a participant of the study (a lapsed unqualified hold's PID
    does not: ``pid_owner`` gives it back on the next consent). Reads only."""
    participant = selectors.participant_by_pid(study, pid)
    return participant is not None and not pid_free(participant)


def pid_owner(*, study: Study, pid: str) -> Participant | None:
    """The participant of the study holding ``pid``, after giving the PID back when its
    hold lapsed before qualifying (``pid_free``: the participant is timed out and keeps the
    PID as ``pid_before_reset``, for the record)."""
    participant = selectors.participant_by_pid(study, pid)
    if participant is None or not pid_free(participant):
        return participant
    with transaction.atomic():
        hold_end(participant)
        Participant.objects.filter(
            pk=participant.pk, status=Participant.Status.TIMED_OUT, qualified_at__isnull=True
        ).update(prolific_pid="", pid_before_reset=pid)
    return None


def pid_free(participant: Participant) -> bool:
    """Whether the participant's PID may be used again: never qualified, never answered the
    test (late answers are kept, ``studies.late``), and timed out or past the hold, so that
    nobody answered anything under it."""
    if participant.qualified_at is not None or participant.qualification_answers:
        return False
    if participant.status == Participant.Status.TIMED_OUT:
        return True
    return participant.status == STARTED and participant.is_late()
