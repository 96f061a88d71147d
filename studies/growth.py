"""Adaptive allocation's growth rounds: new slots for the samples the rule in
``studies.adaptive`` chooses.

Adaptive allocation (``Study.adaptive``) opens ``ratings_per_sample`` slots per sample and
adds more in growth rounds (``slots_grow``, the rule in ``studies.adaptive``). A round runs
when an arrival finds no batch, never on the rating path. Rounds queue on the study row
(``SELECT ... FOR UPDATE``), so two rounds never count the same allotment twice: a sample
never gets more than ``max_ratings_per_sample`` non-void slots and the study never more
than its budget. New slots take the next number, as replacements do.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Max

from annotations.models import Rating, decided_ratings

from . import adaptive
from .assignment import batch_unit
from .models import Slot, Study, StudySample
from .shown_texts import valid_in_study

COUNTED = (Slot.Status.FREE, Slot.Status.RESERVED, Slot.Status.DONE)


def _growth_states(study: Study) -> list[adaptive.SampleState]:
    """Every study sample's valid ratings in this study and its counted slots (2 queries)."""
    wanted: dict[int, int] = {}
    pending: dict[int, int] = {}
    setup: dict[int, int] = {}
    rows = Slot.objects.filter(study=study, status__in=COUNTED).values_list(
        "sample_id", batch_unit(study), "status"
    )
    for sample_id, setup_id, status in rows:
        wanted[sample_id] = wanted.get(sample_id, 0) + 1
        pending[sample_id] = pending.get(sample_id, 0) + (status != Slot.Status.DONE)
        setup[sample_id] = setup_id
    scores: dict[int, list[int]] = {}
    ratings = (  # valid: no excluded rater, the texts the study shows now
        Rating.objects.filter(valid_in_study(study))
        .filter(rater__participant__study=study, sample_id__in=list(wanted))
        .filter(decided_ratings())  # "cannot decide" is no point for an interval
        .values_list("sample_id", "score")
    )
    for sample_id, score in ratings:
        scores.setdefault(sample_id, []).append(score)
    return [
        adaptive.SampleState(
            key=sid,
            group=setup[sid],
            scores=tuple(scores.get(sid, ())),
            wanted=wanted[sid],
            pending=pending[sid],
        )
        for sid in wanted
    ]


def slots_grow(study: Study) -> int:
    """One adaptive growth round (``studies.adaptive.grow``): a new free slot for each
    chosen sample. Returns how many were added (0 for a study without adaptive allocation).
    Runs in its own transaction, queued on the study row."""
    if not study.adaptive:
        return 0
    with transaction.atomic():
        study = Study.objects.select_for_update().get(pk=study.pk)
        if not study.adaptive or study.status != Study.Status.OPEN:
            return 0
        states = _growth_states(study)
        free = Slot.objects.filter(study=study, status=Slot.Status.FREE)
        picks: set[Any] = set(  # sample ids (the growth rule keys states by sample id)
            adaptive.grow(
                states,
                maximum=study.max_ratings_per_sample,
                target_width=study.target_width,
                budget_left=study.budget(len(states)) - sum(s.wanted for s in states),
                batch_groups=study.samples_per_participant,
                free_groups=frozenset(free.values_list(batch_unit(study), flat=True)),
                sd_floor=adaptive.SD_FLOOR,
                rule=study.adaptive_rule,
            )
        )
        if not picks:
            return 0
        tops = (
            Slot.objects.filter(study=study, sample_id__in=picks)
            .values("sample_id")
            .annotate(top=Max("number"), setup=Max("setup_id"), word=Max("word_id"))
        )
        Slot.objects.bulk_create(
            Slot(
                study=study,
                sample_id=t["sample_id"],
                setup_id=t["setup"],
                word_id=t["word"],
                number=t["top"] + 1,
            )
            for t in tops
        )
        return len(picks)


def growth_pending(study: Study) -> bool:
    """Whether an adaptive study may still add places once the ratings being given now are
    in: budget left and some slot still reserved (an arrival is then told to come back)."""
    if not study.adaptive:
        return False
    counted = Slot.objects.filter(study=study, status__in=COUNTED).count()
    n_samples = StudySample.objects.filter(study=study).count()
    if counted >= study.budget(n_samples):
        return False
    return Slot.objects.filter(study=study, status=Slot.Status.RESERVED).exists()
