"""The texts of setups, stories and senses, by version.

An object's own fields hold its *reference* text, the one its dataset's ratings were given
on and the benchmark exports and scoring use; ``version`` is that text's number. Every other
text of the object is a ``TextVersion`` row: an earlier reference text (replaced by a
confirmed reference edit, :mod:`annotations.reference`) or a correction made for a study
(shown by that study only; ``studies.StudyText``). Numbers are unique per object across
both, so the versions a rating names always point at one text. Callers lock the object
(``select_for_update``) before numbering a new version. :func:`versions_locked` is how work
done on a sample's texts elsewhere (a model run's predictions) checks, under the same locks,
that they are still the reference.
"""

from __future__ import annotations

from typing import cast

from django.db import IntegrityError, transaction
from django.db.models import Max, Q, QuerySet

from ambisite.db.row_locks import locked_in_id_order

from .data_versions import EVERY_KIND, data_changed
from .models import Sample, Sense, Setup, Story, TextVersion

TextObject = Setup | Story | Sense

TEXT_FIELDS: dict[str, tuple[str, ...]] = {
    TextVersion.Kind.SETUP: ("precontext", "sentence"),
    TextVersion.Kind.STORY: ("ending",),
    TextVersion.Kind.SENSE: ("gloss", "example_sentence"),
}

KINDS: tuple[str, ...] = (TextVersion.Kind.SETUP, TextVersion.Kind.STORY, TextVersion.Kind.SENSE)
# How a sample reaches each kind's object id and reference version (queries over samples).
SAMPLE_PATHS: dict[str, tuple[str, str]] = {
    TextVersion.Kind.SETUP: ("story__setup_id", "story__setup__version"),
    TextVersion.Kind.STORY: ("story_id", "story__version"),
    TextVersion.Kind.SENSE: ("sense_id", "sense__version"),
}
# Each kind's model, in the order a reference edit locks them (:func:`text_objects`): locks
# taken in another order could deadlock against an edit.
MODELS_IN_LOCK_ORDER: dict[str, type[TextObject]] = {
    TextVersion.Kind.STORY: Story,
    TextVersion.Kind.SETUP: Setup,
    TextVersion.Kind.SENSE: Sense,
}


def showing(kind: str, object_id: int) -> Q:
    """The samples that show the text of this setup, story or sense."""
    return Q(**{SAMPLE_PATHS[kind][0]: object_id})


def text_objects(sample: Sample, *, lock: bool = False) -> list[tuple[str, TextObject]]:
    """The setup, story and sense (if any) whose texts ``sample`` shows, as ``(kind,
    object)``; locked ``FOR UPDATE`` with ``lock`` (before numbering a version)."""
    story = (Story.objects.select_for_update() if lock else Story.objects).get(pk=sample.story_id)
    setups = Setup.objects.select_for_update() if lock else Setup.objects
    found: list[tuple[str, TextObject]] = [
        (TextVersion.Kind.SETUP, setups.get(pk=story.setup_id)),
        (TextVersion.Kind.STORY, story),
    ]
    if sample.sense_id is not None:
        senses = Sense.objects.select_for_update() if lock else Sense.objects
        found.append((TextVersion.Kind.SENSE, senses.get(pk=sample.sense_id)))
    return found


# The reference versions a sample shows: (setup, story, sense), None for a sample without a
# sense. Versions name one text each, so equal versions mean the same texts.
Versions = tuple[int, int, int | None]


def versions_shown(sample: Sample) -> Versions:
    """The reference versions ``sample`` shows (loaded with its story, setup and sense)."""
    return (
        sample.story.setup.version,
        sample.story.version,
        sample.sense.version if sample.sense is not None else None,
    )


def versions_locked(sample_ids: list[int]) -> dict[int, Versions]:
    """The reference versions each sample shows now, with its setups, stories and senses
    locked until the transaction ends (``FOR NO KEY UPDATE``; stories, setups, then senses,
    in the order a reference edit locks them): no reference edit of these samples commits
    between this read and the caller's write, and one already under way is waited for."""
    rows = Sample.objects.filter(pk__in=sample_ids).values_list(
        "pk", *(SAMPLE_PATHS[kind][0] for kind in KINDS)
    )
    shown = {pk: dict(zip(KINDS, ids)) for pk, *ids in rows}
    locked = {
        kind: _lock_versions(model.objects.all(), {ids[kind] for ids in shown.values()} - {None})
        for kind, model in MODELS_IN_LOCK_ORDER.items()
    }
    return {
        pk: cast(
            Versions,
            tuple(locked[kind][ids[kind]] if ids[kind] is not None else None for kind in KINDS),
        )
        for pk, ids in shown.items()
    }


def _lock_versions(objects: QuerySet, pks: set) -> dict[int, int]:
    return dict(locked_in_id_order(objects, pks, "version"))


class TextEditError(Exception):
    """An edit refused, with a reason a person can read."""


def reference_text(obj: TextObject, kind: str) -> dict[str, str]:
    """The object's reference text as ``{field: value}``."""
    return {name: getattr(obj, name) for name in TEXT_FIELDS[kind]}


def text_at(obj: TextObject, kind: str, version: int) -> dict[str, str]:
    """The object's text at ``version`` (its reference text or a stored version)."""
    if version == obj.version:
        return reference_text(obj, kind)
    row = TextVersion.objects.get(kind=kind, object_id=obj.pk, version=version)
    return {name: row.text.get(name, "") for name in TEXT_FIELDS[kind]}


def changed_fields(kind: str, old: dict[str, str], texts: dict[str, str]) -> dict[str, str]:
    """The fields of ``kind`` that ``texts`` sets to something else than ``old`` has."""
    return {k: v for k, v in texts.items() if k in TEXT_FIELDS[kind] and v != old[k]}


def _stored_with(obj: TextObject, kind: str, text: dict[str, str]) -> TextVersion | None:
    """The stored version of ``obj`` whose text is exactly ``text`` (compared here, not in
    SQL: JSON equality differs between databases, and an object has few versions)."""
    rows = TextVersion.objects.filter(kind=kind, object_id=obj.pk).order_by("version")
    return next((row for row in rows if row.text == text), None)


def _next_number(obj: TextObject, kind: str) -> int:
    stored = TextVersion.objects.filter(kind=kind, object_id=obj.pk).aggregate(top=Max("version"))
    return max(obj.version, stored["top"] or 0) + 1


def version_for(*, obj: TextObject, kind: str, text: dict[str, str], by=None) -> int:
    """The number of the version of ``obj`` whose text is ``text``: the reference's, an
    existing version's with exactly this text (two studies making the same correction share
    it), or a new version stored now. The reference text is never changed here."""
    if text == reference_text(obj, kind):
        return obj.version
    found = _stored_with(obj, kind, text)
    if found is not None:
        return found.version
    number = _next_number(obj, kind)
    TextVersion.objects.create(
        kind=kind, object_id=obj.pk, version=number, text=text, replaced_by=by
    )
    return number


def version_planned(obj: TextObject, kind: str, text: dict[str, str]) -> int | None:
    """The number :func:`reference_set` would give ``text`` when it is already stored (a
    study's correction made the reference), else None (a fresh number: no rating has it)."""
    found = _stored_with(obj, kind, text)
    return found.version if found is not None else None


def reference_set(obj: TextObject, kind: str, changes: dict[str, str], by=None) -> bool:
    """Make ``changes`` the object's reference text: the old one is kept as a stored version,
    and a stored version with exactly the new text gives its number (so the ratings a study
    gave on that correction count from now on). False when nothing changes."""
    changes = changed_fields(kind, reference_text(obj, kind), changes)
    if not changes:
        return False
    new_text = {**reference_text(obj, kind), **changes}
    found = _stored_with(obj, kind, new_text)
    number = found.version if found is not None else _next_number(obj, kind)
    if found is not None:
        found.delete()  # its text is the object's own now
    TextVersion.objects.create(
        kind=kind,
        object_id=obj.pk,
        version=obj.version,
        text=reference_text(obj, kind),
        replaced_by=by,
    )
    for name, value in changes.items():
        setattr(obj, name, value)
    obj.version = number
    try:
        with transaction.atomic():
            obj.save(update_fields=[*changes, "version"])
    except IntegrityError:
        raise TextEditError(f"Another {kind} already has exactly this text.") from None
    data_changed(kind=EVERY_KIND)  # which ratings count changed (a text may serve every kind)
    return True
