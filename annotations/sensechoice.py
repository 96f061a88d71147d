"""Import of sense-choice items (format ``ambisite-sense-choice-v1``, docs/task-kinds.md).

One JSON object: ``dataset``, ``title``, ``split``, optional ``source``/``licence``, an
optional sense inventory ``senses`` ({lemma: [candidate, ...]}) and ``items``. An item has
``id``, ``lemma``, ``context`` with the target marked once as ``<t>...</t>`` (as in the
sensebench prompts), optional ``set``, ``candidates`` (else the lemma's inventory) and
``gold`` (a candidate's ``key`` or its 0-based index) and optional ``split`` (default: the
file's; e.g. FOOL's train set as its own split, for runs that fit on it). A candidate has
``gloss`` and optional ``key``, ``synonyms`` and ``examples``. Parsed to dataclasses first,
then written in one transaction; importing the same file again creates nothing, a later file
may add items, and one that changes a stored item (its lemma, context, set, candidates or
gold) is refused naming the item and the field, nothing written (``importers.changed_field``,
AmbiStory's rule).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from django.db import transaction

from .data_versions import data_changed
from .import_limits import length_problem, slug_problem
from .importers import (
    changed_field,
    homonym_ids,
    positions_after,
    stories_without_ending,
)
from .models import (
    SENSE_CANDIDATES_MAX,
    Dataset,
    Homonym,
    Sample,
    Sense,
    SenseCandidate,
    Split,
    TaskKind,
)
from .natural_keys import get_or_create_many
from .safe_input import DuplicateKey, InputError, load_path, subject
from .signals import bulk_change_announce
from .statistics import analyze_imported

FORMAT = "ambisite-sense-choice-v1"
TARGET = re.compile(r"<t>(.+?)</t>")


class SenseChoiceFormatError(ValueError):
    """A file that does not follow the format; the message names the item and field."""


@dataclass(frozen=True)
class Candidate:
    gloss: str
    key: str = ""
    synonyms: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()


@dataclass(frozen=True)
class Item:
    id: str
    lemma: str
    context: str
    candidates: tuple[Candidate, ...]
    gold: int
    item_set: str = ""
    split: str = ""

    @property
    def target(self) -> str:
        found = TARGET.search(self.context)
        return found.group(1) if found else self.lemma


@dataclass(frozen=True)
class SenseChoiceData:
    dataset: str
    title: str
    split: str
    source: str
    licence: str
    senses: dict[str, tuple[Candidate, ...]]
    items: list[Item]


@dataclass(frozen=True)
class SenseChoiceReport:
    items: int
    items_created: int
    sets: dict[str, int]


def split_target(context: str) -> tuple[str, str, str]:
    """(before, target, after) of a context with one ``<t>...</t>`` marker."""
    found = TARGET.search(context)
    if found is None:
        raise ValueError("no <t>...</t> marker")
    return context[: found.start()], found.group(1), context[found.end() :]


def _text(value, model, field: str, where: str) -> str:
    """A scalar field as text, refused when it will not fit its column."""
    if isinstance(value, (dict, list)):
        raise SenseChoiceFormatError(f"{where}: expected text, not a {type(value).__name__}")
    text = str(value)
    problem = length_problem(text, model, field)
    if problem:
        raise SenseChoiceFormatError(f"{where} {problem}")
    return text


def _slug(value: str, model, where: str) -> str:
    problem = slug_problem(value, model)
    if problem:
        raise SenseChoiceFormatError(f"{where}: {problem}")
    return value


def _strings(value, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise SenseChoiceFormatError(f"{where}: expected a list of strings")
    return tuple(value)


def _candidate(raw, where: str) -> Candidate:
    if not isinstance(raw, dict) or not isinstance(raw.get("gloss"), str) or not raw["gloss"]:
        raise SenseChoiceFormatError(f"{where}: a candidate needs a gloss")
    key = _text(raw.get("key", ""), SenseCandidate, "key", f"{where} key")
    return Candidate(
        gloss=raw["gloss"],
        key=key,
        synonyms=_strings(raw.get("synonyms", []), f"{where} synonyms"),
        examples=_strings(raw.get("examples", []), f"{where} examples"),
    )


def _gold(raw, candidates: tuple[Candidate, ...], where: str) -> int:
    if isinstance(raw, int) and not isinstance(raw, bool) and 0 <= raw < len(candidates):
        return raw
    keys = [c.key for c in candidates]
    if isinstance(raw, str) and raw in keys:
        return keys.index(raw)
    raise SenseChoiceFormatError(f"{where}: gold {str(raw)[:40]!r} names no candidate")


def _item_split(raw, where: str) -> str:
    """An item's own split ("" for the file's)."""
    split = _text(raw, Split, "name", f"{where}: field 'split'")
    return _slug(split, Split, f"{where}: field 'split'") if split else ""


def _item(raw, senses: dict[str, tuple[Candidate, ...]], n: int) -> Item:
    if not isinstance(raw, dict):
        raise SenseChoiceFormatError(f"item {n}: not an object")
    where = f"item {str(raw.get('id', n))[:40]}"
    for name in ("id", "lemma", "context"):
        if not isinstance(raw.get(name), str) or not raw[name].strip():
            raise SenseChoiceFormatError(f"{where}: field '{name}' must be a non-empty string")
    _text(raw["id"], Sample, "dataset_id", f"{where}: field 'id'")
    _text(raw["lemma"], Homonym, "form", f"{where}: field 'lemma'")
    if len(TARGET.findall(raw["context"])) != 1:
        raise SenseChoiceFormatError(f"{where}: context must mark the target once as <t>...</t>")
    if "candidates" in raw:
        if not isinstance(raw["candidates"], list):
            raise SenseChoiceFormatError(f"{where}: candidates must be a list")
        candidates = tuple(_candidate(c, where) for c in raw["candidates"])
    else:
        candidates = senses.get(raw["lemma"], ())
    if not 2 <= len(candidates) <= SENSE_CANDIDATES_MAX:
        raise SenseChoiceFormatError(
            f"{where}: needs 2 to {SENSE_CANDIDATES_MAX} candidates, has {len(candidates)}"
        )
    return Item(
        id=raw["id"],
        lemma=raw["lemma"],
        context=raw["context"],
        candidates=candidates,
        gold=_gold(raw.get("gold"), candidates, where),
        item_set=_text(raw.get("set", ""), Sample, "item_set", f"{where}: field 'set'"),
        split=_item_split(raw.get("split", ""), where),
    )


def parse_sense_choice(doc) -> SenseChoiceData:
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise SenseChoiceFormatError(f'the file must be an object with "format": "{FORMAT}"')
    for name in ("dataset", "title", "split"):
        if not isinstance(doc.get(name), str) or not doc[name]:
            raise SenseChoiceFormatError(f"field '{name}' must be a non-empty string")
    _slug(doc["dataset"], Dataset, "field 'dataset'")
    _slug(doc["split"], Split, "field 'split'")
    senses = _senses(doc.get("senses") or {})
    raw_items = doc.get("items") or []
    if not isinstance(raw_items, list):
        raise SenseChoiceFormatError("field 'items' must be a list of items")
    items = [_item(raw, senses, n) for n, raw in enumerate(raw_items)]
    items = [item if item.split else replace(item, split=doc["split"]) for item in items]
    if len({item.id for item in items}) != len(items):
        raise SenseChoiceFormatError("two items have the same id")
    return SenseChoiceData(
        dataset=doc["dataset"],
        title=_text(doc["title"], Dataset, "title", "field 'title'"),
        split=doc["split"],
        source=_text(doc.get("source", ""), Dataset, "source", "field 'source'"),
        licence=_text(doc.get("licence", ""), Dataset, "licence", "field 'licence'"),
        senses=senses,
        items=items,
    )


def _senses(raw) -> dict[str, tuple[Candidate, ...]]:
    if not isinstance(raw, dict):
        raise SenseChoiceFormatError("field 'senses' must be an object {lemma: [candidate]}")
    senses = {}
    for lemma, pair in raw.items():
        _text(lemma, Homonym, "form", "field 'senses': a lemma")
        if not isinstance(pair, list):
            raise SenseChoiceFormatError(f"senses of {lemma}: must be a list of candidates")
        senses[lemma] = tuple(_candidate(c, f"senses of {lemma}") for c in pair)
    return senses


def load_sense_choice(path: str | Path) -> SenseChoiceData:
    """Read and check a file under :mod:`annotations.safe_input`'s rules (UTF-8, no NUL,
    numbers that fit a double, bounded nesting, no key twice in one object); every problem is
    a :class:`SenseChoiceFormatError`. ``OSError`` passes through for the caller."""
    try:
        doc = load_path(str(path))
    except DuplicateKey as error:
        raise SenseChoiceFormatError(
            f"key {error.key[:40]!r} appears twice in one object"
        ) from None
    except InputError as error:
        raise SenseChoiceFormatError(subject(str(error), "the file")) from None
    return parse_sense_choice(doc)


@transaction.atomic
def sense_choice_import(*, data: SenseChoiceData) -> SenseChoiceReport:
    """Write the inventory (as senses of each lemma) and the items (as sense-choice samples
    with their candidates). An item already in its split must be as stored (else
    ``SenseChoiceFormatError`` naming the item and the field)."""
    ds, _ = Dataset.objects.get_or_create(
        name=data.dataset,
        defaults={
            "title": data.title,  # each checked against its column (``parse_sense_choice``)
            "task_kind": TaskKind.SENSE_CHOICE,
            "source": data.source,
            "licence": data.licence,
        },
    )
    if ds.task_kind != TaskKind.SENSE_CHOICE:
        raise SenseChoiceFormatError(f"dataset {ds.name} exists with task kind {ds.task_kind}")
    splits = {
        name: Split.objects.get_or_create(dataset=ds, name=name)[0]
        for name in sorted({item.split for item in data.items})
    }
    numbers = positions_after(split.pk for split in splits.values())  # first: the lock
    hid = homonym_ids([*data.senses, *(item.lemma for item in data.items)])
    get_or_create_many(
        Sense,
        dict.fromkeys(
            (hid[lemma], c.gloss, "") for lemma, cands in data.senses.items() for c in cands
        ),
        ("homonym_id", "gloss", "example_sentence"),
        lambda k: Sense(homonym_id=k[0], gloss=k[1], example_sentence=k[2]),
    )
    existing = _stored_items(ds, data.items)
    new = [
        (next(numbers[splits[item.split].pk]), item)
        for item in data.items
        if (item.split, item.id) not in existing
    ]
    _items_create(splits, hid, new)
    created = len(new)
    written = sum(1 + len(item.candidates) for _, item in new)
    if created:
        data_changed(kind=ds.task_kind, split_ids=[s.pk for s in splits.values()])
        analyze_imported(written)
        bulk_change_announce(kind=ds.task_kind)  # after the ANALYZE: the precompute's plans
    sets: dict[str, int] = {}
    for item in data.items:
        sets[item.item_set] = sets.get(item.item_set, 0) + 1
    return SenseChoiceReport(items=len(data.items), items_created=created, sets=sets)


def _as_stored(item: Item) -> dict:
    """An item's values as ``_stored_items`` reads a stored one, by the file's field name."""
    return {
        "lemma": item.lemma,
        "context": item.context,
        "set": item.item_set,
        "candidates": [
            (c.key, c.gloss, list(c.synonyms), list(c.examples)) for c in item.candidates
        ],
        "gold": item.gold,
    }


def _stored_items(ds: Dataset, items: list[Item]) -> set[tuple[str, str]]:
    """(split, id) of the dataset's stored items; raises if one the file holds too has other
    values (``changed_field``), naming the item and the field."""
    by_key = {(item.split, item.id): item for item in items}
    rows = Sample.objects.filter(split__dataset=ds).values_list(
        "split__name", "dataset_id", "id", "story__setup__homonym__form",
        "story__setup__sentence", "item_set",
    )  # fmt: skip
    existing: set[tuple[str, str]] = set()
    # by sample id: the file's item and the stored item's values
    stored: dict[int, tuple[Item, dict[str, Any]]] = {}
    for split, item_id, pk, lemma, context, item_set in rows.iterator():
        existing.add((split, item_id))
        if (split, item_id) in by_key:
            values: dict[str, Any] = {"lemma": lemma, "context": context, "set": item_set}
            stored[pk] = (by_key[split, item_id], {**values, "candidates": [], "gold": None})
    # only the stored items the file holds again are compared: their candidates alone
    candidates = SenseCandidate.objects.filter(sample_id__in=list(stored)).order_by(
        "sample_id", "index"
    )
    for pk, *candidate, is_gold in candidates.values_list(
        "sample_id", "key", "gloss", "synonyms", "examples", "is_gold"
    ).iterator():
        values = stored[pk][1]
        if is_gold:
            values["gold"] = len(values["candidates"])
        values["candidates"].append(tuple(candidate))
    for item, values in stored.values():
        field = changed_field(values, _as_stored(item))
        if field:
            raise SenseChoiceFormatError(
                f"item {item.id[:40]}: field '{field}' differs from the stored item (a later "
                "file may add items, not change them)"
            )
    return existing


def _items_create(
    splits: dict[str, Split], hid: dict[str, int], items: list[tuple[int, Item]]
) -> None:
    """The items' stories (found or made: ``importers.stories_without_ending``), then their
    samples and candidates, in bulk; ``items``: (position in its split, item)."""
    if not items:
        return
    text = {item.id: (hid[item.lemma], "", item.context) for _, item in items}
    stories = stories_without_ending(text.values())
    samples = Sample.objects.bulk_create(
        [
            Sample(
                split=splits[item.split],
                story_id=stories[text[item.id]].id,
                sense=None,
                item_set=item.item_set,
                dataset_id=item.id,
                position=position,
            )
            for position, item in items
        ],
        batch_size=500,
    )
    SenseCandidate.objects.bulk_create(
        [
            SenseCandidate(
                sample=sample,
                index=i,
                key=c.key,
                gloss=c.gloss,
                synonyms=list(c.synonyms),
                examples=list(c.examples),
                is_gold=i == item.gold,
            )
            for sample, (_, item) in zip(samples, items, strict=True)
            for i, c in enumerate(item.candidates)
        ],
        batch_size=1000,
    )
