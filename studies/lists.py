"""Assignment by fixed lists (``ListDesign``), beside the per-sample batches of
``studies.assignment``, which calls in here for a list-design study.

A study assigned by lists gives each arrival a whole list: every list has
``ratings_per_sample`` places (``ListSlot``), one per Latin-square rotation, and the
participant holding a place rates the list's samples in that rotation's order
(``list_design.item_order``; in an order of their own without the Latin square). The
guarantees are those of the per-sample path, kept by the database:

* an arrival locks one free place with ``SELECT ... FOR UPDATE SKIP LOCKED`` (PostgreSQL)
  and takes it with a compare-and-set ``UPDATE ... WHERE status = 'free'`` that must touch
  the row (SQLite: a lost race rolls the attempt back and it is retried), in the same
  transaction as the participant row and the batch's item slots (``Slot`` rows created
  reserved, so the rating path is the per-sample one);
* a list has at most one counted (free or held) place per rotation (a partial unique
  constraint), so it is never offered to more than ``ratings_per_sample`` participants at
  once; a place is never shared (one participant per place and one place per participant);
* a place given back on timeout or screen-out returns whole: unrated, it is free again;
  after some ratings it is ``released`` (its ratings stay, its participant stays in the
  list's group) and a fresh free place with the same rotation re-offers the whole list; an
  excluded participant's place is ``void`` and replaced the same way, never sample by
  sample.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from django.db import connection, transaction
from django.db.models import Count, Max, Min, Q, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from annotations.kinds import kind as kind_of

from . import list_design, sql
from .errors import StudyError
from .list_models import ListDesign, ListSlot, StudyList, StudyListItem
from .models import AttentionAnswer, CheckQuestion, Participant, Slot, Study, StudySample
from .numbering import create_numbered
from .shown_texts import rated_samples

Status = ListSlot.Status


class ListsContended(Exception):
    """Free places exist but other arrivals hold them right now; try again."""


def uses_lists(study: Study) -> bool:
    """Whether ``study`` is assigned by fixed lists (the one test every caller asks)."""
    with connection.cursor() as cursor:  # every consent asks: a plain cursor, not a queryset
        cursor.execute(sql.list_design_exists(), [study.pk])
        return cursor.fetchone() is not None


def list_lengths(study: Study) -> tuple[int, int] | None:
    """(shortest, longest) of the study's lists: those it has (made or uploaded), or in a
    draft those opening will make (``list_design.list_sizes``); None for a study not
    assigned by lists. One query for an opened study (its lists exist)."""
    lengths = StudyList.objects.filter(study=study).annotate(n=Count("items"))
    span = lengths.aggregate(low=Min("n"), high=Max("n"))
    if span["high"] is not None:
        return span["low"], span["high"]
    if study.status != Study.Status.DRAFT or not ListDesign.objects.filter(study=study).exists():
        return None
    units = Counter(unit for _, unit in _unit_rows(study))
    if not units or study.samples_per_participant < 1:
        return None
    n = sum(units.values())
    return list_design.list_sizes(n, study.samples_per_participant, max(units.values()))


def list_study_ids(study_ids: Sequence[int]) -> set[int]:
    return set(
        ListDesign.objects.filter(study_id__in=list(study_ids)).values_list("study_id", flat=True)
    )


# --- the researcher's side ----------------------------------------------------------------


def kind_problem(kind: str) -> str | None:
    """Why a study of task ``kind`` cannot be assigned by fixed lists, or None (the form,
    ``design_set`` and opening ask this one rule)."""
    if kind_of(kind).grows_in_rounds:
        return (
            f"A {kind_of(kind).items[:-1]} study grows by rounds of new samples; it cannot be "
            "assigned by fixed lists."
        )
    return None


def _unit_rows(study: Study) -> list[tuple[int, int]]:
    """The study's samples as ``(sample id, unit)``: a list holds one sample per unit, the
    setup or, in a one-item-per-word study, the word (``Study.sample_unit``)."""
    rows = StudySample.objects.filter(study=study).values_list("sample_id", study.sample_unit)
    return list(rows)


@transaction.atomic
def design_set(*, study: Study, lists: bool, latin_square: bool = True) -> None:
    """Choose per-sample assignment or fixed lists (and the Latin square); while the study
    is a draft only. Leaving the list design drops its lists."""
    if study.status != Study.Status.DRAFT and lists != uses_lists(study):
        raise StudyError("The assignment can only be changed while the study is a draft.")
    problem = kind_problem(study.task_kind) if lists else None
    if problem:
        raise StudyError(problem)
    if not lists:
        StudyList.objects.filter(study=study).delete()
        ListDesign.objects.filter(study=study).delete()
        return
    design, _ = ListDesign.objects.get_or_create(study=study, defaults={"seed": study.pk})
    if design.latin_square != latin_square:
        design.latin_square = latin_square
        design.save(update_fields=["latin_square"])


def lists_drop(*, study: Study) -> None:
    """The study's samples changed (draft): its lists go, to be made again on opening (an
    uploaded file must be uploaded again)."""
    if StudyList.objects.filter(study=study).exists():
        StudyList.objects.filter(study=study).delete()
        ListDesign.objects.filter(study=study).update(source=ListDesign.Source.MADE)


def made_lists_drop(*, study: Study) -> None:
    """A draft's list length or unit changed: lists made by the old one go, to be made again
    on opening; an uploaded file's lists stay as the file has them."""
    if ListDesign.objects.filter(study=study, source=ListDesign.Source.MADE).exists():
        StudyList.objects.filter(study=study).delete()


def _write_lists(study: Study, lists: list[list[int]]) -> None:
    StudyList.objects.filter(study=study).delete()
    setup_of = dict(
        StudySample.objects.filter(study=study).values_list("sample_id", "sample__story__setup_id")
    )
    made = StudyList.objects.bulk_create(
        StudyList(study=study, number=k) for k in range(1, len(lists) + 1)
    )
    StudyListItem.objects.bulk_create(
        (
            StudyListItem(list=lst, sample_id=sid, setup_id=setup_of[sid], position=pos)
            for lst, ids in zip(made, lists)
            for pos, sid in enumerate(ids)
        ),
        batch_size=1000,
    )


def _draft_design(study: Study) -> ListDesign:
    """The study's list design, locked with the study row; refused unless a draft."""
    study = Study.objects.select_for_update().get(pk=study.pk)
    design = ListDesign.objects.select_for_update().filter(study=study).first()
    if design is None:
        raise StudyError("This study is not assigned by lists.")
    if study.status != Study.Status.DRAFT:
        raise StudyError("Lists can only be changed while the study is a draft.")
    return design


@transaction.atomic
def lists_make(*, study: Study) -> int:
    """(Re)make the study's lists from its samples (``list_design.make_lists``: lists of at
    most ``samples_per_participant``, one sample per setup, seeded); draft only. Returns how
    many lists there are."""
    design = _draft_design(study)
    lists = list_design.make_lists(_unit_rows(study), study.samples_per_participant, design.seed)
    _write_lists(study, lists)
    ListDesign.objects.filter(pk=design.pk).update(source=ListDesign.Source.MADE)
    return len(lists)


@transaction.atomic
def lists_upload(*, study: Study, text: str, name: str = "") -> int:
    """Replace the study's lists with a researcher's file (``list_design.parse_lists``:
    CSV, one list per line, or JSON); every sample must be one of the study's, no list may
    hold a sample twice or two samples of one setup (of one word in a one-item-per-word
    study). Draft only; a refused file changes
    nothing and the error names the line (``list_design.ListFileError``)."""
    design = _draft_design(study)
    parsed = list_design.parse_lists(text, name)
    refs: dict[str, list[list_design.SampleRef]] = {}
    rows = StudySample.objects.filter(study=study).values_list(
        "sample_id", "sample__dataset_id", "sample__split__name", study.sample_unit
    )
    for sample_id, dataset_id, split, unit in rows:
        ref = list_design.SampleRef(sample_id, unit)
        refs.setdefault(str(dataset_id), []).append(ref)
        refs.setdefault(f"{split}:{dataset_id}", []).append(ref)
    lists = list_design.resolve_lists(parsed, refs, per_word=study.one_item_per_word)
    _write_lists(study, lists)
    ListDesign.objects.filter(pk=design.pk).update(source=ListDesign.Source.UPLOADED)
    return len(lists)


def lists_problem(study: Study) -> str | None:
    """Why a list-design study cannot open, or None (``assignment.batch_problem``)."""
    if study.adaptive:
        return "Adaptive allocation cannot be combined with fixed lists."
    if kind_problem(study.task_kind):
        return kind_problem(study.task_kind)
    if study.ratings_per_sample < 1:
        return "Participants per list (ratings per sample) must be at least 1."
    if StudyList.objects.filter(study=study).exists():
        return None
    if not StudySample.objects.filter(study=study).exists():
        return "The study has no samples."
    if study.samples_per_participant < 1:
        return "Samples per participant (the list length) must be at least 1."
    return None


def lists_create(study: Study) -> int:
    """On opening: make the lists if there are none yet, then the missing places (one free
    place per list and rotation ``0..ratings_per_sample-1``); idempotent. Returns how many
    places were added."""
    if not StudyList.objects.filter(study=study).exists():
        design = ListDesign.objects.get(study=study)
        made = list_design.make_lists(_unit_rows(study), study.samples_per_participant, design.seed)
        _write_lists(study, made)
    counted = set(
        ListSlot.objects.filter(study=study, status__in=ListSlot.COUNTED).values_list(
            "list_id", "rotation"
        )
    )
    tops = dict(
        ListSlot.objects.filter(study=study)
        .values("list_id")
        .annotate(top=Max("number"))
        .values_list("list_id", "top")
    )
    new = []
    for list_id in StudyList.objects.filter(study=study).values_list("id", flat=True):
        top = tops.get(list_id) or 0
        for rotation in range(study.ratings_per_sample):
            if (list_id, rotation) not in counted:
                top += 1
                new.append(ListSlot(study=study, list_id=list_id, rotation=rotation, number=top))
    ListSlot.objects.bulk_create(new, batch_size=1000)
    return len(new)


# --- arrival ---------------------------------------------------------------------------------


def _lock_free_place(study: Study) -> ListSlot | None:
    """A free place, locked until the transaction ends (rows other arrivals hold are
    skipped): the lowest list first, so lists fill one after another and complete groups
    form early. ``ListsContended`` when every free place is held by another arrival."""
    free = ListSlot.objects.filter(study=study, status=Status.FREE).order_by("list_id", "number")
    if connection.features.has_select_for_update_skip_locked:
        place = free.select_for_update(skip_locked=True, of=("self",)).first()
    else:
        place = free.first()
    if place is None and free.exists():
        raise ListsContended
    return place


def list_reserve(
    participant: Participant, checks: Sequence[CheckQuestion], rng: random.Random
) -> bool:
    """Give ``participant`` a free place and its list as their batch (reserved item slots
    in the place's order, ``checks`` at random positions among them). Returns False when no
    place is free; raises ``ListsContended`` when the free ones are held by others, and
    ``ListSlotTaken`` when the compare-and-set lost (SQLite, without row locks)."""
    study = participant.study
    place = _lock_free_place(study)
    if place is None:
        return False
    now = timezone.now()
    taken = ListSlot.objects.filter(pk=place.pk, status=Status.FREE).update(
        status=Status.HELD, participant=participant, reserved_at=now
    )
    if taken != 1:
        raise ListSlotTaken
    items = list(
        StudyListItem.objects.filter(list_id=place.list_id)
        .order_by("position")
        .values_list("sample_id", "setup_id", "sample__story__setup__homonym_id")
    )
    per_word = study.one_item_per_word  # the slots carry the word (one per participant)
    design = ListDesign.objects.get(study=study)
    if design.latin_square:
        order = list_design.item_order(len(items), place.rotation, study.ratings_per_sample)
    else:
        order = list(range(len(items)))
        rng.shuffle(order)
    total = len(items) + len(checks)
    check_at = sorted(rng.sample(range(total), len(checks)))
    item_at = sorted(set(range(total)) - set(check_at))
    tops = dict(
        Slot.objects.filter(study=study, sample_id__in=[s for s, _, _ in items])
        .values("sample_id")
        .annotate(top=Max("number"))
        .values_list("sample_id", "top")
    )
    slots = [
        Slot(
            study=study,
            sample_id=items[k][0],
            setup_id=items[k][1],
            word_id=items[k][2] if per_word else None,
            number=(tops.get(items[k][0]) or 0) + 1,
            status=Slot.Status.RESERVED,
            participant=participant,
            position=pos,
            reserved_at=now,
        )
        for k, pos in zip(order, item_at)
    ]
    # Inserted in sample order, whatever the rotation's item order: two arrivals numbering
    # the same samples at once then meet on the first one, and the later one fails the
    # unique (sample, number) check when the first commits (a lost race, tried again).
    # In rotation order each waited on a sample the other had inserted first: a deadlock,
    # a server error for one of them.
    Slot.objects.bulk_create(sorted(slots, key=lambda slot: slot.sample_id))
    AttentionAnswer.objects.bulk_create(
        AttentionAnswer(participant=participant, question=q, position=pos)
        for q, pos in zip(checks, check_at)
    )
    return True


class ListSlotTaken(Exception):
    """Another arrival took the place between the read and the compare-and-set (SQLite)."""


def pending_block(study: Study) -> bool:
    """Whether some place is held by a participant who has not qualified yet (the study is
    then busy, not full: those holds end within minutes)."""
    return ListSlot.objects.filter(
        study=study, status=Status.HELD, participant__status=Participant.Status.STARTED
    ).exists()


# --- places given back, void and restored ----------------------------------------------


def _replace(place: ListSlot) -> None:
    """A fresh free place for ``place``'s list with the same rotation and the next number
    (the whole list is offered again)."""
    # two places of a list given back at once: renumbered (``numbering``)
    create_numbered(
        ListSlot, study_id=place.study_id, scope={"list_id": place.list_id}, rotation=place.rotation
    )


def _place(participant: Participant) -> ListSlot | None:
    return ListSlot.objects.select_for_update().filter(participant=participant).first()


def list_release(participant: Participant) -> int:
    """Timeout or screen-out: the participant's unrated items go, and their place returns
    whole: free again when nothing was rated, else released and replaced by a fresh place
    (the ratings given stay). Returns how many unrated items were given back."""
    place = _place(participant)
    unrated = Slot.objects.filter(participant=participant, status=Slot.Status.RESERVED)
    gone = unrated.count()
    unrated.delete()
    if place is None or place.status != Status.HELD:
        return gone
    if Slot.objects.filter(participant=participant).exists():
        ListSlot.objects.filter(pk=place.pk).update(status=Status.RELEASED)
        _replace(place)
    else:
        ListSlot.objects.filter(pk=place.pk).update(
            status=Status.FREE, participant=None, reserved_at=None
        )
    return gone


def list_void(participant: Participant) -> int:
    """Exclusion: the participant's items are void and their place too; a held place is
    replaced by a fresh one (a released one already was). Returns how many items."""
    held = Slot.objects.filter(  # an outdated item stays so (its text was edited)
        participant=participant, status__in=[Slot.Status.RESERVED, Slot.Status.DONE]
    )
    count = held.update(status=Slot.Status.VOID)
    place = _place(participant)
    if place is not None and place.status in (Status.HELD, Status.RELEASED):
        ListSlot.objects.filter(pk=place.pk).update(status=Status.VOID)
        if place.status == Status.HELD:
            _replace(place)
    return count


def list_restore(participant: Participant) -> int:
    """Undo ``list_void`` (the researcher included the participant again): rated items count
    again, and the place is held again if its replacement is still free (withdrawn), else
    released. Returns how many samples went above the wanted ratings (the replacement
    was taken: the list then has one more participant)."""
    rated, current = rated_samples(participant.study_id, participant.rater_id)
    voids = Slot.objects.filter(participant=participant, status=Slot.Status.VOID)
    voids.filter(sample_id__in=rated - current).update(status=Slot.Status.OUTDATED)
    back = voids.filter(sample_id__in=current).update(
        status=Slot.Status.DONE, done_at=Coalesce("done_at", Value(timezone.now()))
    )
    place = _place(participant)
    if place is None or place.status != Status.VOID:
        return 0
    if participant.status == Participant.Status.TIMED_OUT:  # it had been released already
        ListSlot.objects.filter(pk=place.pk).update(status=Status.RELEASED)
        return 0
    spare = (
        ListSlot.objects.select_for_update(skip_locked=True)
        .filter(list_id=place.list_id, rotation=place.rotation, status=Status.FREE)
        .first()
    )
    if spare is not None:
        spare.delete()
        ListSlot.objects.filter(pk=place.pk).update(status=Status.HELD)
        voids.update(status=Slot.Status.RESERVED)  # unrated items: theirs to rate again
        return 0
    ListSlot.objects.filter(pk=place.pk).update(status=Status.RELEASED)
    return back


# --- the researcher's view ---------------------------------------------------------------


def lists_csv(study: Study) -> str:
    """The study's lists in the upload format (``list_design.parse_lists``: CSV, one list per
    line, its samples' ids in the list's base order), so a file downloaded and uploaded
    again gives the same lists. Ids are ``split:id`` when the study's samples come from
    more than one split (two queries)."""
    splits = StudySample.objects.filter(study=study).values("sample__split").distinct()
    qualify = splits.count() > 1
    rows = (
        StudyListItem.objects.filter(list__study=study)
        .order_by("list__number", "position")
        .values_list("list__number", "sample__dataset_id", "sample__split__name")
    )
    lines: dict[int, list[str]] = {}
    for number, dataset_id, split in rows:
        lines.setdefault(number, []).append(f"{split}:{dataset_id}" if qualify else str(dataset_id))
    return "".join(",".join(refs) + "\n" for _, refs in sorted(lines.items()))


@dataclass(frozen=True)
class ListFill:
    """One list's fill state for the study page."""

    number: int
    items: int
    wanted: int  # places counted (free or held)
    free: int
    rating: int  # held by a participant still rating (or not yet qualified)
    finished: int
    replaced: int  # released or void places (their list was offered again)


def list_fill(study: Study) -> list[ListFill]:
    """Every list of the study with its fill state (two queries)."""
    finished = Q(status=Status.HELD, participant__status=Participant.Status.FINISHED)
    active = Q(status=Status.HELD, participant__status__in=Participant.ACTIVE)
    rows = (
        ListSlot.objects.filter(study=study)
        .values("list_id")
        .annotate(
            free=Count("id", filter=Q(status=Status.FREE)),
            held=Count("id", filter=Q(status=Status.HELD)),
            rating=Count("id", filter=active),
            finished=Count("id", filter=finished),
            replaced=Count("id", filter=Q(status__in=[Status.RELEASED, Status.VOID])),
        )
        .values_list("list_id", "free", "held", "rating", "finished", "replaced")
    )
    places = {row[0]: row[1:] for row in rows}
    out = []
    for lst in StudyList.objects.filter(study=study).annotate(n=Count("items")).order_by("number"):
        free, held, rating, done, replaced = places.get(lst.pk, (0, 0, 0, 0, 0))
        out.append(
            ListFill(
                number=lst.number,
                items=lst.n,
                wanted=free + held,
                free=free,
                rating=rating,
                finished=done,
                replaced=replaced,
            )
        )
    return out
