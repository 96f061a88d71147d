"""The texts a study shows: the reference texts, except where the study has its own version.

A correction made for a study (``text_corrections.sample_texts_correct``) stores a new
version of the setup, story or sense (``annotations.text_versions``) and pins it for that
study (``StudyText``): the study's pages show it, its ratings are given on it, and the study's
ratings of the text it showed before are outdated for the study and re-queued. The
reference text, and so the benchmark's labels, exports and scores, stay as they are;
changing those is the confirmed reference edit (``text_corrections.sample_reference_edit``).
One rule for "the version a study shows": :func:`shown_version` in queries,
:func:`studies.sql.shown_sql` in hand-written SQL, :func:`overlay` for items built in Python.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.db.models import Case, F, OuterRef, Q, Subquery, Value, When
from django.db.models.functions import Coalesce

from annotations.exporters import iter_ambistory_json
from annotations.models import Rater, Rating, Sample, TextVersion
from annotations.text_versions import KINDS, SAMPLE_PATHS, TEXT_FIELDS, TextObject, text_at

from .models import Study, StudyText


def shown_version(study: Study | int, kind: str, sample_path: str = ""):
    """The version of the ``kind`` text that ``study`` shows for the sample at
    ``sample_path`` (``""``: the query's row is the sample; ``"sample__"`` from a rating):
    the study's own version if it has one, else the reference version."""
    object_id, version = SAMPLE_PATHS[kind]
    pinned = StudyText.objects.filter(
        study_id=getattr(study, "pk", study), kind=kind, object_id=OuterRef(sample_path + object_id)
    ).values("version")[:1]
    return Coalesce(Subquery(pinned), F(sample_path + version))


def current_in_study(study: Study | int, prefix: str = "") -> Q:
    """Ratings given on the texts ``study`` shows now (``prefix`` as in
    ``annotations.models.current_ratings``: ``"ratings__"`` from samples)."""
    sample = "" if prefix == "ratings__" else f"{prefix}sample__"
    setup, story, sense = (shown_version(study, kind, sample) for kind in KINDS)
    same_sense = Q(**{f"{sample}sense__isnull": True}) | Q(**{f"{prefix}sense_version": sense})
    return same_sense & Q(**{f"{prefix}setup_version": setup, f"{prefix}story_version": story})


def valid_in_study(study: Study | int, prefix: str = "") -> Q:
    """The study's own notion of ``valid_ratings``: not by an excluded rater, and given on
    the texts the study shows now."""
    excluded = Q(**{f"{prefix}rater__in": Rater.objects.excluded()})
    return ~excluded & current_in_study(study, prefix)


def rated_samples(study: Study | int, rater_id: int) -> tuple[set[int], set[int]]:
    """The samples the rater rated, and those of them rated on the texts ``study`` shows
    now (the rest were given on a text edited since: outdated for the study)."""
    is_current = Case(When(current_in_study(study), then=Value(True)), default=Value(False))
    rows = Rating.objects.filter(rater_id=rater_id).values_list("sample_id", is_current)
    rated: set[int] = set()
    current: set[int] = set()
    for sample_id, now in rows:  # one query: each rating with whether it is current
        rated.add(sample_id)
        if now:
            current.add(sample_id)
    return rated, current


def _objects_of(sample: Sample) -> list[tuple[str, TextObject | None]]:
    return [
        (TextVersion.Kind.SETUP, sample.story.setup),
        (TextVersion.Kind.STORY, sample.story),
        (TextVersion.Kind.SENSE, sample.sense),
    ]


# Item attributes per text field (an item calls the gloss its ``meaning``)
_ITEM_FIELDS = {"gloss": "meaning"}


def _own_versions(study_id: int) -> tuple[dict[tuple[str, int], int], dict[tuple, dict]]:
    """The study's versions ``{(kind, object_id): version}`` and their stored texts by
    ``(kind, object_id, version)``. One query when the study has none, two when it has."""
    pins = {
        (kind, object_id): version
        for kind, object_id, version in StudyText.objects.filter(study_id=study_id).values_list(
            "kind", "object_id", "version"
        )
    }
    if not pins:
        return pins, {}
    wanted = Q(pk__in=[])
    for (kind, object_id), version in pins.items():
        wanted |= Q(kind=kind, object_id=object_id, version=version)
    stored = {(t.kind, t.object_id, t.version): t.text for t in TextVersion.objects.filter(wanted)}
    return pins, stored


def overlay(study_id: int, items: list[Any], samples: dict[int, Sample]) -> None:
    """Give the items of ``samples`` (``studies.selectors.Item``, built from the reference
    texts with ``with_related`` samples) the texts and versions ``study_id`` shows."""
    pins, stored = _own_versions(study_id)
    if not pins:
        return
    for item in items:
        if item.sample_id not in samples:
            continue
        shown = []
        for kind, obj in _objects_of(samples[item.sample_id]):
            version = pins.get((kind, obj.pk), obj.version) if obj is not None else 1
            text = stored.get((kind, getattr(obj, "pk", 0), version))
            if text is not None:
                for name in TEXT_FIELDS[kind]:
                    setattr(item, _ITEM_FIELDS.get(name, name), text.get(name, ""))
            shown.append(str(version))
        item.text_version = ".".join(shown)


def shown_versions_of(study: Study, sample: Sample) -> dict[str, int]:
    """``{kind: version}`` of the texts ``study`` shows for ``sample`` (with_related)."""
    pins = _pins_for(study, sample)
    return {
        kind: pins.get(kind, obj.version) for kind, obj in _objects_of(sample) if obj is not None
    }


def _pins_for(study: Study, sample: Sample) -> dict[str, int]:
    mine = Q(pk__in=[])
    for kind, obj in _objects_of(sample):
        if obj is not None:
            mine |= Q(kind=kind, object_id=obj.pk)
    rows = StudyText.objects.filter(mine, study=study).values_list("kind", "version")
    return dict(rows)


def shown_texts_of(study: Study, sample: Sample) -> dict[str, str]:
    """The texts ``study`` shows for ``sample`` (with_related), field by field."""
    versions = shown_versions_of(study, sample)
    texts: dict[str, str] = {}
    for kind, obj in _objects_of(sample):
        if obj is not None:
            texts.update(text_at(obj, kind, versions[kind]))
    return texts


# ``annotations.exporters``' row keys of each text field
_EXPORT_KEYS = {
    "precontext": "story__setup__precontext",
    "sentence": "story__setup__sentence",
    "ending": "story__ending",
    "gloss": "sense__gloss",
    "example_sentence": "sense__example_sentence",
}


def iter_study_ambistory_json(
    study: Study, *, include_excluded: bool = False, every: bool = False
) -> Iterator[str]:
    """The study's samples in AmbiStory JSON with the texts the study shows and the ratings
    given on them: the study's own, or with ``every`` everyone's (imports, other studies)."""
    pins, stored = _own_versions(study.pk)

    def rewrite(rows: list[dict]) -> None:
        for row, kind in ((row, kind) for row in rows for kind in KINDS):
            object_id = row[SAMPLE_PATHS[kind][0]]
            text = stored.get((kind, object_id, pins.get((kind, object_id))))
            if text is not None:
                row.update({_EXPORT_KEYS[name]: text.get(name, "") for name in TEXT_FIELDS[kind]})

    ratings = Rating.objects.filter(current_in_study(study))
    if not every:
        ratings = ratings.filter(rater__participant__study=study)
    samples = Sample.objects.filter(studies=study)
    return iter_ambistory_json(
        samples, include_excluded=include_excluded, ratings=ratings, texts=rewrite
    )
