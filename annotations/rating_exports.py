"""Ratings in long format (one row per rating) as CSV or jsonl, streamed with flat memory.

Rows come from ``values_list().iterator(chunk_size)`` (a server-side cursor on PostgreSQL),
so no model instance is built and memory does not grow with the number of ratings. Raters
appear by pseudonym only: Prolific ids never leave the database. ``score`` reads by
``task_kind``: 1-5 (plausibility), 0-4 (relatedness) or the chosen candidate's index (sense
choice).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterator
from typing import Any

from django.db.models import CharField, Exists, F, OuterRef, Value
from django.db.models.functions import Coalesce

from .models import RaterExclusion, Rating, RatingQuerySet
from .scope import RatingScope

CHUNK = 5000
# each column of the file and the field or annotation it is read from, in file order
_FIELDS = (
    ("dataset", "sample__split__dataset__name"),
    ("split", "sample__split__name"),
    ("id", "sample__dataset_id"),
    ("sample_id", "sample__sample_id"),
    ("rater", "rater__pseudonym"),
    ("rater_kind", "rater__kind"),
    ("rater_excluded", "rater_excluded"),
    ("group", "rater_group"),  # the rater's group (a fixed list: "<study>:<list>") or ""
    ("task_kind", "kind"),
    ("score", "score"),
    ("nonsensical", "nonsensical"),
    ("comment", "comment"),
    ("sentence_order", "sentence_order"),  # a pair's order shown: "12", "21" or ""
    ("created_at", "created_at"),
    ("setup_version", "setup_version"),
    ("story_version", "story_version"),
    ("sense_version", "sense_version"),
    ("outdated", "outdated"),
)
COLUMNS = tuple(column for column, _ in _FIELDS)
_SOURCES = tuple(source for _, source in _FIELDS)

# Studies live above this app, so the rater's group comes from an expression on Rating that
# the studies app registers at start-up (``register_group``; the agreement page's groups).
_group_sources: list[Callable[[], Any]] = []


def register_group(source: Callable[[], Any]) -> None:
    """Called by the studies app at start-up: ``source()`` is an expression on ``Rating``
    naming the rater's group as text (NULL: none)."""
    if source not in _group_sources:
        _group_sources.append(source)


def _group() -> Any:
    if not _group_sources:
        return Value("")
    return Coalesce(_group_sources[0](), Value(""), output_field=CharField())


def ratings_for_export(
    ratings: RatingQuerySet | None = None,
    *,
    include_excluded: bool = False,
    include_outdated: bool = False,
) -> RatingQuerySet:
    """Ratings in a stable order (split, sample, import position, id), valid ones by default;
    ``include_excluded``: also excluded raters' ratings (flagged ``rater_excluded``),
    ``include_outdated``: also ratings given on an earlier version of a text (flagged
    ``outdated``), as the rating scope reads the two flags (``RatingScope.validity``). Every
    row names the setup, story and sense text versions the rating was given on."""
    ratings = Rating.objects.all() if ratings is None else ratings
    scope = RatingScope(
        kind=None, include_excluded=include_excluded, include_outdated=include_outdated
    )
    return ordered_for_export(scope.validity(ratings))


def ordered_for_export(ratings: RatingQuerySet) -> RatingQuerySet:
    """Ratings (already chosen, e.g. by a rating scope) in the export's order, flagged
    ``rater_excluded`` / ``outdated``."""
    active = RaterExclusion.objects.filter(rater=OuterRef("rater_id"), revoked_at__isnull=True)
    current = Rating.objects.current().filter(pk=OuterRef("pk"))
    # Study ratings have no position: last in every database (SQLite sorts NULL first).
    ratings = ratings.annotate(
        rater_excluded=Exists(active), outdated=~Exists(current), rater_group=_group()
    )
    return ratings.order_by(
        "sample__split_id", "sample__position", F("position").asc(nulls_last=True), "id"
    )


def _rows(ratings: RatingQuerySet, chunk_size: int) -> Iterator[tuple]:
    yield from ratings.values_list(*_SOURCES).iterator(chunk_size=chunk_size)


def iter_ratings_jsonl(ratings: RatingQuerySet, *, chunk_size: int = CHUNK) -> Iterator[str]:
    """One JSON object per rating and line; ``created_at`` in ISO 8601."""
    lines: list[str] = []
    for row in _rows(ratings, chunk_size):
        record = dict(zip(COLUMNS, row))
        record["created_at"] = record["created_at"].isoformat()
        lines.append(json.dumps(record, ensure_ascii=False) + "\n")
        if len(lines) >= 1000:
            yield "".join(lines)
            lines = []
    if lines:
        yield "".join(lines)


def iter_ratings_csv(ratings: RatingQuerySet, *, chunk_size: int = CHUNK) -> Iterator[str]:
    """A header line, then one row per rating (RFC 4180 quoting, booleans as true/false)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    for count, row in enumerate(_rows(ratings, chunk_size), start=1):
        writer.writerow(_csv_cells(row))
        if count % 1000 == 0:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value):
    """A CSV cell that a spreadsheet shows as text: a string starting with ``= + - @``, a tab
    or a carriage return (which Excel, LibreOffice and Sheets would run as a formula, e.g.
    ``=HYPERLINK(...)`` in a participant's comment) gets a leading single quote (OWASP's
    advice). Every CSV export writes its cells through this function; jsonl keeps raw text."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def _csv_cells(row: tuple) -> list:
    cells = list(row)
    for name in ("rater_excluded", "nonsensical", "outdated"):
        index = COLUMNS.index(name)
        cells[index] = "true" if cells[index] else "false"
    at = COLUMNS.index("created_at")
    cells[at] = cells[at].isoformat()
    return [spreadsheet_safe(cell) for cell in cells]
