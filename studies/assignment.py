"""Which participant rates which sample: slots, batches, release and replacement.

Every study sample has ``ratings_per_sample`` slots (rows). A participant's batch is a set of
reserved slots, one per *unit* at most: the setup, or in a one-item-per-word study
(``Study.one_item_per_word``, RAW-C's design) the word (``batch_unit``; below, "setup" reads
as the unit: ``Candidate.setup_id`` and ``SetupFree.setup_id`` then hold the word's id).
Safety under many web processes comes from the database, never from a Python lock:

* candidates are read without locks, then claimed with ``SELECT ... FOR UPDATE SKIP LOCKED``
  (PostgreSQL), so two arrivals never wait on or take the same slot;
* the claim is one compare-and-set ``UPDATE ... WHERE id IN (...) AND status = 'free'`` that
  must touch every chosen row, so SQLite (which ignores row locks) stays correct too: a lost
  race rolls the whole reservation back and it is retried;
* unique constraints refuse two slots of one setup (or of one word, ``Slot.word``) for a
  participant and two slots at one batch position; ``(study, sample, number)`` is unique,
  so a sample never has more slots than wanted (replacements for excluded raters take the
  next number);
* a participant row and its batch are created in one transaction per attempt
  (``batch_reserve``): a refused or lost attempt leaves nothing, and the retry back-off
  sleeps with no transaction open, so no lock is held while waiting.

A batch is reserved when the participant consents (a POST), never on a GET: it is held for
``Study.hold_minutes`` (briefly until the qualification test, then the time limit) and
released by ``slots_release`` when the participant times out or is screened out. Expiry is
never swept inside an arrival's transaction: an arrival that finds the study full sweeps
the late sessions (``participants_expire``, one short transaction each) and tries once more.
Rating marks a slot done with one compare-and-set UPDATE (``studies.services``), so the
rating path costs one write per item besides the rating itself.

Adaptive allocation adds slots in growth rounds: ``studies.growth``.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import NamedTuple

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import Count, Max, Q, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from ambisite.db.statistics import analyze_after_commit

from . import adaptive, free_counts, lists, selectors, sql
from .free_counts import SetupFree
from .models import AttentionAnswer, CheckQuestion, Participant, Slot, Study, StudySample
from .numbering import create_numbered, numbers_lock
from .shown_texts import rated_samples

RESERVE_ATTEMPTS = 8
LOCK_ROUNDS = 3
QUEUED_ROUNDS = 200


class BatchUnavailable(Exception):
    """No batch can be formed for this arrival right now (the study is full)."""


class Candidate(NamedTuple):
    slot_id: int
    setup_id: int  # the batch unit's id (``batch_unit``)
    number: int


def batch_unit(study: Study) -> str:
    """The ``Slot`` column a batch takes one slot of at most: the setup, or the word in a
    one-item-per-word study (``sql.UNITS``). The one rule every batch read follows."""
    return "word_id" if study.one_item_per_word else "setup_id"


def batch_problem(study: Study) -> str | None:
    """Why no batch can ever be formed for ``study`` under the rules, or None. A writing
    study reserves no samples (its activity's app hands out its items)."""
    if not study.activity_def.reserves_batch:
        return None
    if lists.uses_lists(study):  # fixed lists: studies.lists
        return lists.lists_problem(study) or _checks_problem(study)
    n_samples = StudySample.objects.filter(study=study).count()
    if n_samples == 0:
        return "The study has no samples."
    if study.samples_per_participant < 1:
        return "Samples per participant must be at least 1."
    if study.ratings_per_sample < 1:
        return "Ratings per sample must be at least 1."
    bounds = adaptive.bounds_problem(
        ratings_per_sample=study.ratings_per_sample,
        max_ratings_per_sample=study.max_ratings_per_sample,
    )
    if study.adaptive and bounds:
        return bounds
    if study.adaptive and study.budget(n_samples) < n_samples * study.ratings_per_sample:
        return (
            f"The rating budget must cover the first {study.ratings_per_sample} ratings of "
            f"each of the {n_samples} samples ({n_samples * study.ratings_per_sample})."
        )
    units = StudySample.objects.filter(study=study).values(study.sample_unit).distinct()
    setups = units.count()
    if study.samples_per_participant > setups:
        noun = "words" if study.one_item_per_word else "setups"
        return (
            f"Each participant would need {study.samples_per_participant} samples from "
            f"different {noun}, but the study's samples come from only {setups} {noun}."
        )
    return _checks_problem(study)


def _checks_problem(study: Study) -> str | None:
    wanted = study.attention_checks_per_batch
    if not wanted:
        return None
    have = study.check_questions.filter(as_attention_check=True).count()
    if not have:
        return "The study asks for attention checks but has no attention-check questions."
    if have < wanted:  # a batch would get fewer than its pages say (``_draw_checks``)
        return (
            f"The study asks for {wanted} attention checks per participant but has only "
            f"{have} attention-check questions."
        )
    return None


def slots_create(study: Study) -> int:
    """Give every study sample ``ratings_per_sample`` slots that count (not void nor
    outdated: those were replaced), numbered on from its highest; idempotent. On opening,
    and when the ratings per sample go up. In a one-item-per-word study each slot carries
    its sample's word. A list-design study gets its lists and their places instead
    (``lists.lists_create``). Under ``numbering.numbers_lock``, against replacements."""
    numbers_lock(study.pk)
    if lists.uses_lists(study):
        return lists.lists_create(study)
    gone = [Slot.Status.VOID, Slot.Status.OUTDATED]
    have = {
        row["sample_id"]: (row["live"], row["top"])
        for row in Slot.objects.filter(study=study)
        .values("sample_id")
        .annotate(live=Count("id", filter=~Q(status__in=gone)), top=Max("number"))
    }
    rows = StudySample.objects.filter(study=study).values_list(
        "sample_id", "sample__story__setup_id", "sample__story__setup__homonym_id"
    )
    per_word = study.one_item_per_word
    new = [
        Slot(
            study=study,
            sample_id=sample_id,
            setup_id=setup_id,
            word_id=word_id if per_word else None,
            number=top + k,
        )
        for sample_id, setup_id, word_id in rows
        for live, top in [have.get(sample_id, (0, 0))]
        for k in range(1, study.ratings_per_sample - live + 1)
    ]
    Slot.objects.bulk_create(new, batch_size=1000, ignore_conflicts=True)
    analyze_after_commit(len(new), Slot)  # arrivals may come at once (a Prolific release)
    return len(new)


def rank(setups: Iterable[SetupFree], k: int, rng: random.Random) -> list[SetupFree]:
    """The ``k`` setups a batch takes (pure; no database): setups with the most free slots
    go first, which is what keeps the last arrivals able to form a batch of distinct setups;
    then the one whose lowest free slot number is lowest (its samples have the fewest
    ratings so far); ties are broken at random. Fewer than ``k`` when there are fewer."""
    keyed = sorted(((-s.free, s.low, rng.random()), i, s) for i, s in enumerate(setups))
    return [s for _, _, s in keyed[:k]]


def pick(candidates: Iterable[Candidate], setups: Sequence[SetupFree], rng) -> list[Candidate]:
    """One slot for each of ``setups`` (pure): at random among that setup's candidates with
    the lowest number. A setup without a candidate gets none."""
    low: dict[int, list[Candidate]] = {}
    for cand in candidates:
        have = low.get(cand.setup_id)
        if not have or cand.number < have[0].number:
            low[cand.setup_id] = [cand]
        elif cand.number == have[0].number:
            have.append(cand)
    return [rng.choice(low[s.setup_id]) for s in setups if s.setup_id in low]


def summarise(counts: Iterable[tuple[int, int, int]]) -> list[SetupFree]:
    """``(setup, slot number, how many free)`` rows as ``rank`` needs them: per setup, its
    free slots and their lowest number; rows with none free are left out (pure)."""
    by_setup: dict[int, tuple[int, int]] = {}
    for setup_id, number, n in counts:
        if n <= 0:
            continue
        free, low = by_setup.get(setup_id, (0, number))
        by_setup[setup_id] = (free + n, min(low, number))
    return [SetupFree(setup_id, free, low) for setup_id, (free, low) in by_setup.items()]


def choose(candidates: Iterable[Candidate], k: int, rng: random.Random) -> list[Candidate]:
    """Pick ``k`` free slots from ``k`` different setups (pure; no database): the setups
    ``rank`` puts first, and in each the slot ``pick`` takes. The database path below does
    the same in two reads (per-setup counts, then the chosen setups' lowest slots), so it
    never loads every free slot of the study."""
    candidates = list(candidates)
    summary = summarise((c.setup_id, c.number, 1) for c in candidates)
    return pick(candidates, rank(summary, k, rng), rng)


def _free_setups(study: Study) -> list[SetupFree]:
    """Per setup: its free slots and their lowest number, counted afresh (``free_counts``)."""
    return free_counts.count(study.pk, batch_unit(study))


def _lowest_slots(study: Study, setups: list[SetupFree], skip: set[int]) -> list[Candidate]:
    """The free slots of ``setups`` at their lowest free number (a few per setup), but
    ``skip``; the lowest number is read with them, not taken from the count."""
    with connection.cursor() as cursor:
        cursor.execute(
            sql.slot_lowest(len(setups), batch_unit(study)),
            [study.pk, *(s.setup_id for s in setups)],
        )
        return [Candidate(*row) for row in cursor.fetchall() if row[0] not in skip]


def _claim(study: Study, k: int, rng: random.Random, rounds: int) -> list[Candidate]:
    """Lock ``k`` free slots of distinct setups, skipping rows other arrivals hold.

    The free slots are counted once (``_free_setups``, the costly read: a GROUP BY over
    the study's free slots, 6-7 ms of PostgreSQL an arrival in a 500-arrival burst, a third
    of the arrival's) and the rounds after a collision work from that count: they leave out
    the setups already taken and those whose lowest free slots all turned out held by
    others (``passed``), and try the next ones in ``rank``'s order. They are counted again
    only when that runs out, and then tried again after a short pause (the rows we need are
    held right now). Before, every round counted again: 2.7 counts an arrival in that burst.
    The first round may rank from this process's latest count (``free_counts.latest``):
    arrivals a moment apart then share one count. Where that count runs out, would take a
    setup that is near full or leaves little choice (``free_counts.must_recount``), the
    slots are counted afresh before anything is decided.

    Raises ``BatchUnavailable`` when the committed free slots cannot make a batch at all,
    ``_Contended`` when they could but other arrivals hold the rows we need right now."""
    taken: list[Candidate] = []
    skipped: set[int] = set()  # slots another arrival holds
    passed: set[int] = set()  # setups with no untried free slot at their lowest number
    free = free_counts.latest(study.pk, batch_unit(study))
    fresh = free is None
    if free is None:  # (spelled so for mypy's narrowing)
        free = _free_setups(study)
    for _ in range(rounds):
        need = k - len(taken)
        taken_setups = {c.setup_id for c in taken}
        left_out = taken_setups | passed
        chosen = rank((s for s in free if s.setup_id not in left_out), need, rng)
        if not fresh and free_counts.must_recount(free, chosen, need, k):
            free, fresh, passed = _free_setups(study), True, set()
            continue  # an older count: rank again from the slots as they are
        if len(chosen) < need:
            free = _free_setups(study)
            if sum(s.setup_id not in taken_setups for s in free) < need:
                break  # not enough free setups at all (the caller counts once more)
            skipped, passed = set(), set()
            time.sleep(rng.uniform(0.005, 0.03))  # the rows we need are held by others
            continue
        candidates = _lowest_slots(study, chosen, skipped)
        passed.update({s.setup_id for s in chosen} - {c.setup_id for c in candidates})
        picks = pick(candidates, chosen, rng)
        locked = _lock_free([c.slot_id for c in picks])
        taken += [c for c in picks if c.slot_id in locked]
        skipped.update(c.slot_id for c in picks if c.slot_id not in locked)
        if len(taken) == k:
            free_counts.taken(study.pk, batch_unit(study), (c.setup_id for c in taken))
            return taken
    if len(_free_setups(study)) < k:
        raise BatchUnavailable("No batch of distinct setups is free.")
    raise _Contended


def _lock_free(ids: list[int]) -> set[int]:
    """Those of the slots ``ids`` that are still free, locked until the transaction ends;
    rows another arrival holds are skipped, not waited for (``SKIP LOCKED``; SQLite has no
    row locks: its write transaction holds the whole database). Hand-written: an arrival
    runs it once per round and the ORM's version cost a third of ``_claim``'s CPU."""
    if not ids:
        return set()
    with connection.cursor() as cursor:
        cursor.execute(sql.slot_lock_free(len(ids)), ids)
        return {row[0] for row in cursor.fetchall()}


class _Contended(Exception):
    """Other arrivals hold the slots this one needs; back off and try again."""


class _LostRace(Exception):
    pass


def _reserve_once(participant: Participant, rng: random.Random, queued: bool) -> None:
    study = participant.study
    if study.activity_def.reserves_batch and lists.uses_lists(study):
        # a whole list as the batch (studies.lists): one place, claimed with SKIP LOCKED, so
        # arrivals never queue on the study row (its lock would deadlock with the item
        # slots' foreign-key checks)
        _reserve_list(participant, _draw_checks(study, study.attention_checks_per_batch, rng), rng)
        return
    if queued:
        # Colliding arrivals queue on the study row, so at most one of them holds partial
        # batches while it waits; first-try arrivals never wait (they skip locked rows and
        # give everything back when they cannot complete). FOR NO KEY UPDATE, not FOR
        # UPDATE: the foreign-key check of every arrival's participant INSERT takes FOR KEY
        # SHARE on this row, which FOR UPDATE blocks (in a 500-arrival burst each INSERT
        # waited 28 ms on average behind the queue, and two queued arrivals that had both
        # inserted could deadlock); FOR NO KEY UPDATE queues only the queued arrivals.
        Study.objects.select_for_update(no_key=True).filter(pk=study.pk).first()
    k, n_checks = study.samples_per_participant, study.attention_checks_per_batch
    if not study.activity_def.reserves_batch:  # the activity's app hands out its items
        k, n_checks = 0, 0
    slots = _claim(study, k, rng, QUEUED_ROUNDS if queued else LOCK_ROUNDS) if k else []
    checks = _draw_checks(study, n_checks, rng)
    positions = list(range(len(slots) + len(checks)))
    rng.shuffle(positions)
    if slots:  # one compare-and-set UPDATE for the whole batch (hand-written: 30 WHENs)
        ids = [c.slot_id for c in slots]
        now = connection.ops.adapt_datetimefield_value(timezone.now())
        pairs = [v for cand, pos in zip(slots, positions) for v in (cand.slot_id, pos)]
        with connection.cursor() as cursor:
            cursor.execute(sql.slot_reserve(len(slots)), [participant.pk, now, *pairs, *ids])
            claimed = cursor.rowcount
        if claimed != len(slots):  # only possible without row locks (SQLite): start again
            raise _LostRace
    AttentionAnswer.objects.bulk_create(
        AttentionAnswer(participant=participant, question=q, position=pos)
        for q, pos in zip(checks, positions[len(slots) :])
    )


def _draw_checks(study: Study, n_checks: int, rng: random.Random) -> list[CheckQuestion]:
    """The attention checks of a batch: ``n_checks`` of the study's, at random."""
    checks = sorted(
        (q for q in selectors.check_questions(study) if q.as_attention_check), key=lambda q: q.pk
    )
    return rng.sample(checks, min(n_checks, len(checks)))


def _reserve_list(participant: Participant, checks, rng: random.Random) -> None:
    try:
        found = lists.list_reserve(participant, checks, rng)
    except lists.ListsContended:
        raise _Contended from None
    except lists.ListSlotTaken:
        raise _LostRace from None
    if not found:
        raise BatchUnavailable("Every list has all its participants.")


_gates: dict[int, threading.BoundedSemaphore] = {}
_gates_made = threading.Lock()


def claim_gate() -> AbstractContextManager:
    """What a consent transaction enters before it begins: at most
    ``ARRIVAL_CLAIMS_PER_PROCESS`` of them run at once in this process (0: no limit). Entered
    only outside any transaction, so a thread never waits here holding a row lock that the
    thread it waits for might need. Concurrent claims in one study reach for the same
    lowest free slots, skip each other's locked rows and lose rounds (each another count of
    the free slots); a web process's threads taking turns leaves one claim per process."""
    n = settings.ARRIVAL_CLAIMS_PER_PROCESS
    if n <= 0 or connection.in_atomic_block:
        return nullcontext()
    with _gates_made:
        return _gates.setdefault(n, threading.BoundedSemaphore(n))


def batch_reserve(
    *, create: Callable[[], Participant], rng: random.Random | None = None
) -> Participant:
    """Create the participant (``create``) and reserve their whole batch (samples +
    attention checks at random positions) in ONE transaction per attempt, or raise
    ``BatchUnavailable`` leaving nothing behind. A lost race rolls the attempt back and
    the back-off sleep happens outside any transaction this function opened, so no row
    lock is held while waiting. Each attempt waits its turn at ``claim_gate`` first. An
    ``IntegrityError`` raised by ``create`` (the same PID twice at once) is the caller's to
    handle."""
    rng = rng or random.Random()
    for attempt in range(RESERVE_ATTEMPTS):
        try:
            with claim_gate(), transaction.atomic():
                participant = create()
                try:
                    _reserve_once(participant, rng, queued=attempt > 0)
                except IntegrityError as exc:
                    raise _LostRace from exc
            return participant
        except (_LostRace, _Contended):
            time.sleep(rng.uniform(0, 0.02 * 2 ** min(attempt, 5)))
    raise BatchUnavailable("Could not reserve a batch; please try again.")


def pending_holds_block(study: Study) -> bool:
    """Whether a batch could be formed if the participants who have not qualified yet gave
    their places back: the study is then busy (those holds end within minutes), not full."""
    if lists.uses_lists(study):
        return lists.pending_block(study)
    pending = Q(status=Slot.Status.RESERVED, participant__status=Participant.Status.STARTED)
    setups = (
        Slot.objects.filter(study=study)
        .filter(Q(status=Slot.Status.FREE) | pending)
        .values(batch_unit(study))
        .distinct()
        .count()
    )
    return setups >= study.samples_per_participant


def slots_release(participant: Participant) -> int:
    """Give the participant's unrated slots back to the pool (timeout, screen-out); in a
    list-design study their list place returns whole (``lists.list_release``)."""
    if lists.uses_lists(participant.study):
        return lists.list_release(participant)
    return Slot.objects.filter(participant=participant, status=Slot.Status.RESERVED).update(
        status=Slot.Status.FREE, participant=None, position=None, reserved_at=None
    )


def slot_replace(slot: Slot) -> None:
    """A fresh free slot for ``slot``'s sample with the next number (``numbering``)."""
    scope = {"sample_id": slot.sample_id}
    create_numbered(
        Slot, study_id=slot.study_id, scope=scope, setup_id=slot.setup_id, word_id=slot.word_id
    )


def slots_void(participant: Participant) -> int:
    """The participant's ratings no longer count: void their slots and open replacements,
    so each sample still reaches the wanted number of valid ratings (a list-design study
    replaces the whole list place: ``lists.list_void``)."""
    if lists.uses_lists(participant.study):
        return lists.list_void(participant)
    held = list(  # an outdated slot was replaced when its text was edited
        Slot.objects.select_for_update().filter(
            participant=participant, status__in=[Slot.Status.RESERVED, Slot.Status.DONE]
        )
    )
    Slot.objects.filter(id__in=[s.id for s in held]).update(status=Slot.Status.VOID)
    for slot in held:
        slot_replace(slot)
    return len(held)


def slots_restore(participant: Participant) -> int:
    """Undo ``slots_void`` after a researcher includes the participant again: each rated
    void slot counts again, and a participant still rating holds their unrated ones again,
    each withdrawing an unclaimed replacement; one rated on a text edited since is outdated
    (its replacement stays, for the new text). Returns how many samples went (or go, once
    rated) above the wanted number because their replacement was already taken."""
    if lists.uses_lists(participant.study):
        return lists.list_restore(participant)
    over = 0
    rated, current = rated_samples(participant.study_id, participant.rater_id)
    voids: Sequence[Slot] = list(
        Slot.objects.select_for_update().filter(participant=participant, status="void")
    )
    holding = participant.status in Participant.ACTIVE  # mid-batch: unrated places are theirs
    for slot in voids:
        if slot.sample_id not in rated and not holding:
            continue
        if slot.sample_id in rated and slot.sample_id not in current:
            Slot.objects.filter(id=slot.id).update(status=Slot.Status.OUTDATED)
            continue
        spare = (
            Slot.objects.select_for_update(skip_locked=True)
            .filter(study_id=slot.study_id, sample_id=slot.sample_id, status=Slot.Status.FREE)
            .order_by("-number")
            .first()
        )
        if spare is None:
            over += 1
        else:
            spare.delete()
        if slot.sample_id not in rated:
            Slot.objects.filter(id=slot.id).update(status=Slot.Status.RESERVED)
            continue
        Slot.objects.filter(id=slot.id).update(
            status=Slot.Status.DONE, done_at=Coalesce("done_at", Value(timezone.now()))
        )
    return over
