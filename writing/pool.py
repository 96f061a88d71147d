"""Writes for the pool of sense pairs the writers draw from: ``pair_add``, ``pair_flag`` and
``pool_import`` (a researcher's file, ``importers``); ``pair_of`` finds an entry. Keyword-only,
typed, atomic; re-exported by ``services``, the writing pipeline's writes."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q

from ambisite.db.row_locks import locked_in_id_order
from annotations.importers import homonym_ids
from annotations.models import Sense
from annotations.natural_keys import get_or_create_many

from .errors import WritingError
from .models import SensePair


@transaction.atomic
def pair_add(
    *,
    form: str,
    gloss_a: str,
    gloss_b: str,
    example_a: str = "",
    example_b: str = "",
    pos_a: str = "",
    pos_b: str = "",
    flag_pos: bool = True,
) -> tuple[SensePair, bool]:
    """The pool entry for this word and these two senses (created when new). With
    ``flag_pos`` a pair whose senses are of different parts of speech is flagged out."""
    form, gloss_a, gloss_b = form.strip(), gloss_a.strip(), gloss_b.strip()
    if not form or not gloss_a or not gloss_b:
        raise WritingError("A pool entry needs a word and two meanings.")
    if gloss_a == gloss_b and example_a.strip() == example_b.strip():
        raise WritingError("The two meanings must differ.")
    homonym_id = homonym_ids([form])[form]
    key_a = _sense_key(homonym_id, gloss_a, example_a)
    key_b = _sense_key(homonym_id, gloss_b, example_b)
    senses = _senses([key_a, key_b])  # inserted in one order, whatever a's and b's (see there)
    sense_a, sense_b = senses[key_a], senses[key_b]
    _senses_locked([sense_a.pk, sense_b.pk])  # then looked up as a pair (see there)
    pair = pair_of(sense_a, sense_b)
    if pair is not None:
        return pair, False
    pair = SensePair(
        homonym_id=homonym_id,
        sense_a=sense_a,
        sense_b=sense_b,
        pos_a=pos_a.strip(),
        pos_b=pos_b.strip(),
    )
    if flag_pos and pair.differs_in_pos:
        pair.excluded = True
        pair.exclusion_reason = f"Different parts of speech ({pair.pos_a} / {pair.pos_b})."
    pair.save()
    return pair, True


def _sense_key(homonym_id: int, gloss: str, example: str) -> tuple[int, str, str]:
    """A pool sense's natural key (``Sense``'s unique fields), its texts stripped."""
    return homonym_id, gloss.strip(), example.strip()


def _senses(keys: list[tuple[int, str, str]]) -> dict[tuple[int, str, str], Sense]:
    """The senses of these keys, found or created (``get_or_create_many``): new ones go in
    sorted, not in the caller's order, so two entries or files with the same new senses in
    other orders take them in one order and the second waits (no deadlock)."""
    rows, _ = get_or_create_many(
        Sense,
        dict.fromkeys(keys),
        ("homonym_id", "gloss", "example_sentence"),
        lambda k: Sense(homonym_id=k[0], gloss=k[1], example_sentence=k[2]),
    )
    return rows


def _senses_locked(sense_ids: list[int]) -> None:
    """Lock these senses until the commit, in id order, before their pool entry is looked
    up: a pair is one entry in either order, but ``unique_sense_pair`` holds only for one
    order, so two entries of the same stored senses added at once (the second with a and b
    swapped) would both find none and both be stored. The second to lock waits for the
    first's commit and then finds its entry. ``pool_import`` locks a file's senses all at
    once first (each entry's lock is then its own already), so two files lock theirs in one
    order (``locked_in_id_order``: an entry pointing at a sense is not held up)."""
    locked_in_id_order(Sense, sense_ids)


def pair_of(sense_a: Sense, sense_b: Sense) -> SensePair | None:
    """The pool entry of these two senses, in either order (a pair is one entry)."""
    return SensePair.objects.filter(
        Q(sense_a=sense_a, sense_b=sense_b) | Q(sense_a=sense_b, sense_b=sense_a)
    ).first()


def pair_flag(*, pair: SensePair, excluded: bool, reason: str = "") -> SensePair:
    """Flag a pool entry out (never drawn again) or back in."""
    pair.excluded = excluded
    pair.exclusion_reason = reason.strip() if excluded else ""
    pair.save(update_fields=["excluded", "exclusion_reason"])
    return pair


@transaction.atomic
def pool_import(*, rows: list, flag_pos: bool = True) -> tuple[int, int]:
    """Add parsed pool rows (``importers.PairRow``) in one transaction; returns (new,
    already there). The rows' homonyms and senses are found or created first, all at once
    in sorted order (``_senses``), not row by row in the file's order, and locked all at
    once in id order (``_senses_locked``)."""
    hid = homonym_ids(row.word.strip() for row in rows)
    keys = []  # in the file's order (the ids'); ``_senses`` inserts them sorted
    for r in rows:
        h = hid[r.word.strip()]
        keys += [_sense_key(h, r.meaning_1, r.example_1), _sense_key(h, r.meaning_2, r.example_2)]
    _senses_locked([sense.pk for sense in _senses(keys).values()])  # all, in id order
    new = 0
    for row in rows:
        _, created = pair_add(
            form=row.word,
            gloss_a=row.meaning_1,
            example_a=row.example_1,
            pos_a=row.pos_1,
            gloss_b=row.meaning_2,
            example_b=row.example_2,
            pos_b=row.pos_2,
            flag_pos=flag_pos,
        )
        new += created
    return new, len(rows) - new
