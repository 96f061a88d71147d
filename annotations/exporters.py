"""Exports as generators of text chunks, so a view can stream them and memory stays flat.

* AmbiStory JSON: the import format, with ``average``/``stdev`` recomputed from the ratings
  exactly as the dataset computes them (``sum/len`` and ``statistics.stdev``: the official
  rule's ``label_mean`` and ``label_sd``). The texts are the reference versions and so are
  the ratings: ratings of another version (an earlier reference text, a study's own
  correction) are left out (the long-format rating export lists them with their versions).
  A sample with no rating is written with its labels redacted (``"(???)"``), as in the
  official test files, so an unlabelled split's export imports back (``allow_redacted``).
* The official reference jsonl: ``{"id": "0", "label": [4, 5, 3, 1, 5]}`` per line.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator

from django.db.models import QuerySet

from .importers import redacted_labels
from .models import Rater, Rating, RatingQuerySet, Sample
from .official import label_mean, label_sd

CHUNK = 2000


def _rows(samples: QuerySet[Sample]) -> Iterator[dict]:
    """Samples with their texts, in dataset order, chunk by chunk."""
    fields = (
        "id",
        "dataset_id",
        "sample_id",
        "story__setup__homonym__form",
        "sense__gloss",
        "sense__example_sentence",
        "story__setup__precontext",
        "story__setup__sentence",
        "story__ending",
        "story_id",
        "story__setup_id",
        "sense_id",
    )
    yield from samples.order_by("split_id", "position").values(*fields).iterator(CHUNK)


def _ratings_for(
    sample_ids: list[int],
    include_excluded: bool,
    ratings: RatingQuerySet | None = None,
    reference: bool = True,
) -> dict[int, list[tuple]]:
    # the texts written are the reference ones: so are the ratings (the rest are outdated),
    # unless the caller writes other texts and narrowed ``ratings`` to them (``reference``)
    qs = (Rating.objects.all() if ratings is None else ratings).filter(sample_id__in=sample_ids)
    if reference:
        qs = qs.current()
    if not include_excluded:
        qs = qs.exclude(rater__in=Rater.objects.excluded())
    found: dict[int, list[tuple]] = {}
    for sid, score, flag in qs.order_by("sample_id", "position", "id").values_list(
        "sample_id", "score", "nonsensical"
    ):
        found.setdefault(sid, []).append((score, flag))
    return found


def _chunks(rows: Iterable[dict], size: int = CHUNK) -> Iterator[list[dict]]:
    batch: list[dict] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def _with_ratings(
    samples: QuerySet[Sample],
    include_excluded: bool,
    only: RatingQuerySet | None = None,
    texts: Callable[[list[dict]], None] | None = None,
) -> Iterator[tuple]:
    for batch in _chunks(_rows(samples)):
        if texts is not None:
            texts(batch)
        ids = [row["id"] for row in batch]
        ratings = _ratings_for(ids, include_excluded, only, reference=texts is None)
        for row in batch:
            yield row, ratings.get(row["id"], [])


def ambistory_record(row: dict, ratings: list[tuple]) -> dict:
    """One sample in the file's key order. A sample with no rating (an unlabelled split, or
    one the scope has no rating of) has its labels redacted as in the official test files,
    ``"(???)"``, which the import reads back with ``allow_redacted`` (an empty ``choices``
    and a null ``average`` it refuses)."""
    choices = [score for score, _ in ratings]
    labels = (
        {
            "choices": choices,
            "average": label_mean(choices),
            "stdev": label_sd(choices),
            "nonsensical": [flag for _, flag in ratings],
        }
        if choices
        else redacted_labels()
    )
    return {
        "homonym": row["story__setup__homonym__form"],
        "judged_meaning": row["sense__gloss"],
        "precontext": row["story__setup__precontext"],
        "sentence": row["story__setup__sentence"],
        "ending": row["story__ending"],
        **labels,
        "sample_id": row["sample_id"],
        "example_sentence": row["sense__example_sentence"],
    }


def iter_ambistory_json(
    samples: QuerySet[Sample],
    *,
    include_excluded: bool = False,
    indent: int | None = 4,
    ratings: RatingQuerySet | None = None,
    texts: Callable[[list[dict]], None] | None = None,
) -> Iterator[str]:
    """The samples as one AmbiStory JSON object, streamed sample by sample; ``ratings``
    narrows which ratings are written (e.g. one study's own). By default the texts are the
    reference texts and the ratings those given on them; ``texts`` rewrites each chunk's
    rows (``_rows``' keys) to other texts (a study's own versions), and ``ratings`` must
    then hold the ratings of exactly those texts."""
    yield "{"
    first = True
    for row, found in _with_ratings(samples, include_excluded, ratings, texts):
        body = json.dumps(ambistory_record(row, found), indent=indent)
        if indent:
            body = body.replace("\n", "\n" + " " * indent)
            lead = ("\n" if first else ",\n") + " " * indent
        else:
            lead = "" if first else ", "
        yield f"{lead}{json.dumps(row['dataset_id'])}: {body}"
        first = False
    yield "\n}" if indent and not first else "}"


def iter_reference_jsonl(
    samples: QuerySet[Sample],
    *,
    include_excluded: bool = False,
    ratings: RatingQuerySet | None = None,
) -> Iterator[str]:
    """The official reference format: one ``{"id", "label"}`` line per sample; ``ratings``
    narrows which ratings are written (e.g. one study's own). A sample with no rating in
    that scope is left out: a line needs a label (the official scorer averages it, and
    ``predictions.evaluation.parse_reference`` refuses an empty one)."""
    for row, found in _with_ratings(samples, include_excluded, ratings):
        label = [score for score, _ in found]
        if not label:
            continue
        yield json.dumps({"id": row["dataset_id"], "label": label}) + "\n"
