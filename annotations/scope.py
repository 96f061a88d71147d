"""Which ratings: the one scope that every dashboard page, chart, JSON endpoint and ratings
export takes, parsed from the query string in one place (:func:`parse_scope`).

A scope is a task kind, optionally one split (or every split of a dataset), optionally one
study (then only its own participants' ratings count: imported ratings and other studies'
ratings of the same samples do not), and whether excluded raters' ratings and ratings given
on an earlier version of a text are kept. Unknown or malformed query parameters are refused
with :class:`~django.core.exceptions.BadRequest` naming the parameter, so a misspelt filter
never silently widens what is counted.

Studies live above this app, so they plug in through :func:`register_study_finder` (filled
by ``studies`` at start-up) rather than being imported here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import urlencode

from django.core.exceptions import BadRequest
from django.db.models import Q

from ambisite.query import unknown_param

from .kinds import KINDS
from .models import Dataset, Rater, Rating, RatingQuerySet, Sample, SampleQuerySet, Split, TaskKind

SCOPE_PARAMS = ("dataset", "split", "study", "kind", "include_excluded", "include_outdated")
TRUE, FALSE = ("1", "true", "on", "yes"), ("", "0", "false", "off", "no")
# what one sample is, per kind, for the pages' sentences (``annotations.kinds``)
ITEM_NAMES: dict[str, str] = {value: k.items for value, k in KINDS.items()}


class ScopeError(BadRequest):
    """A query parameter that cannot be read: ``param`` names it; ``missing``: the value
    names nothing that exists (an API may answer 404 rather than 400)."""

    def __init__(self, param: str, message: str, *, missing: bool = False):
        super().__init__(f"{param}: {message}")
        self.param, self.missing = param, missing


@dataclass(frozen=True)
class ScopeStudy:
    """A study as the scope sees it: what to call it and which rows are its own."""

    pk: int
    slug: str
    title: str
    task_kind: str
    ratings: Q  # on Rating: the study's own participants' ratings
    samples: Q  # on Sample: the study's samples
    current: Q  # on Rating: given on the texts the study shows (its own corrections too)


StudyFinder = Callable[[str], "ScopeStudy | None"]
_study_finders: list[StudyFinder] = []


def register_study_finder(finder: StudyFinder) -> None:
    """Called by the studies app at start-up: ``finder(value)`` returns the study a
    ``study=`` parameter names (an id or a slug), None when there is none."""
    if finder not in _study_finders:
        _study_finders.append(finder)


def refuse_unknown(params: Mapping, known: Iterable[str]) -> None:
    """``BadRequest`` naming the first query parameter that is not in ``known``."""
    unknown = unknown_param(params, known)
    if unknown is not None:
        raise ScopeError(*unknown)


def flag_param(params: Mapping, name: str) -> bool:
    """A yes/no parameter: 1/true/on/yes or 0/false/off/no (absent or empty: no)."""
    raw = str(params.get(name) or "").strip().lower()
    if raw in TRUE:
        return True
    if raw in FALSE:
        return False
    raise ScopeError(name, f"must be true or false, not {raw[:40]!r}")


@dataclass(frozen=True)
class RatingScope:
    """Which ratings count. ``kind`` None: every kind (exports only; a dashboard always
    looks at one kind, since scores of different kinds never mix)."""

    kind: str | None = TaskKind.PLAUSIBILITY
    splits: tuple[Split, ...] = ()
    dataset: str = ""
    study: ScopeStudy | None = None
    include_excluded: bool = False
    include_outdated: bool = False

    @property
    def split(self) -> Split | None:
        return self.splits[0] if len(self.splits) == 1 else None

    @property
    def narrows_samples(self) -> bool:
        """Whether the samples are a strict subset of the kind's (else no semi-join)."""
        return bool(self.splits or self.study)

    def samples(self) -> SampleQuerySet:
        qs: SampleQuerySet = Sample.objects.all()
        if self.kind:
            qs = qs.of_kind(self.kind)
        if self.splits:
            qs = qs.filter(split__in=[s.pk for s in self.splits])
        if self.study is not None:
            qs = qs.filter(self.study.samples)
        return qs

    def ratings(self, samples: SampleQuerySet | None = None) -> RatingQuerySet:
        """The ratings in scope (of ``samples`` when given, a subset of :meth:`samples`):
        what every page, chart, JSON endpoint and export counts."""
        return self.validity(self.rows(samples))

    def rows(self, samples: SampleQuerySet | None = None) -> RatingQuerySet:
        """:meth:`ratings` before the valid/current rules (to list who was left out)."""
        qs: RatingQuerySet = Rating.objects.all()
        if self.kind:
            qs = qs.filter(kind=self.kind)
        if samples is not None:
            qs = qs.filter(sample__in=samples)
        elif self.splits:
            qs = qs.filter(sample__split__in=[s.pk for s in self.splits])
        if self.study is not None:
            qs = qs.filter(self.study.ratings)
        return qs

    def validity(self, ratings: RatingQuerySet) -> RatingQuerySet:
        """The model's own rules (``valid``/``current``), loosened as the flags say; with a
        study, "current" is the study's (the texts it shows, its own corrections included)."""
        if self.study is None and not self.include_excluded and not self.include_outdated:
            return ratings.valid()
        if not self.include_excluded:
            ratings = ratings.exclude(rater__in=Rater.objects.excluded())
        if not self.include_outdated:
            ratings = ratings.filter(self.study.current) if self.study else ratings.current()
        return ratings

    def params(self) -> dict[str, str]:
        """The scope as query parameters (what :func:`parse_scope` reads back)."""
        out = {"kind": self.kind or ""}
        if self.split is not None:
            out["split"] = str(self.split.pk)
        elif self.dataset:
            out["dataset"] = self.dataset
        if self.study is not None:
            out["study"] = self.study.slug
        if self.include_excluded:
            out["include_excluded"] = "1"
        if self.include_outdated:
            out["include_outdated"] = "1"
        return {k: v for k, v in out.items() if v}

    def query_string(self) -> str:
        return urlencode(self.params())

    def describe(self, *, kind_label: str = "") -> str:
        """The scope in one line, for pages and JSON endpoints to say what they counted."""
        kind = kind_label or (TaskKind(self.kind).label if self.kind else "every task kind")
        splits = ", ".join(str(s) for s in self.splits) or "every split"
        study = (
            f"{self.study.title} ({self.study.slug}), its own participants' ratings only"
            if self.study
            else "none (every rater's ratings: imported ones and every study's)"
        )
        excluded = "kept" if self.include_excluded else "left out"
        outdated = "kept" if self.include_outdated else "left out"
        return (
            f"task kind {kind} · splits: {splits} · study: {study} · excluded raters: "
            f"{excluded} · outdated ratings (given on an earlier text): {outdated}"
        )


def parse_scope(
    params: Mapping,
    *,
    known: Iterable[str] = (),
    default_kind: str | None = TaskKind.PLAUSIBILITY,
) -> RatingScope:
    """The scope a query string asks for. Every parameter must be a scope parameter or in
    ``known`` (the address's own); a bad value or an unknown name is a ``BadRequest``
    (400) naming it. The kind, when not given, is the split's, else the study's, else
    the dataset's, else ``default_kind``."""
    refuse_unknown(params, (*SCOPE_PARAMS, *known))
    dataset = _text(params, "dataset")
    splits = _splits(_text(params, "split"), dataset)
    study = _study(_text(params, "study"))
    kind = _kind(_text(params, "kind"), splits, dataset, study, default_kind)
    return RatingScope(
        kind=kind,
        splits=splits,
        dataset=dataset,
        study=study,
        include_excluded=flag_param(params, "include_excluded"),
        include_outdated=flag_param(params, "include_outdated"),
    )


def _text(params: Mapping, name: str) -> str:
    return str(params.get(name) or "").strip()


def _splits(value: str, dataset: str) -> tuple[Split, ...]:
    """A split by id, or by name (within ``dataset`` when given); a dataset alone: all of
    its splits."""
    qs = Split.objects.select_related("dataset").order_by("id")
    if dataset:
        qs = qs.filter(dataset__name=dataset)
        if not value and not qs.exists():
            raise ScopeError("dataset", f"there is no dataset {dataset[:60]!r}", missing=True)
    if not value:
        return tuple(qs) if dataset else ()
    by_id = value.isascii() and value.isdigit() and len(value) < 19
    found = list(qs.filter(Q(pk=int(value)) if by_id else Q(name=value))) or list(
        qs.filter(name=value)
    )
    if not found:
        raise ScopeError("split", f"there is no split {value[:60]!r}", missing=True)
    if len({s.dataset.task_kind for s in found}) > 1:
        raise ScopeError("split", f"{value[:60]!r} names splits of several kinds; add dataset=")
    return tuple(found)


def _study(value: str) -> ScopeStudy | None:
    if not value:
        return None
    for finder in _study_finders:
        found = finder(value)
        if found is not None:
            return found
    raise ScopeError(
        "study", f"there is no study {value[:60]!r} (give its id or slug)", missing=True
    )


def _kind(
    value: str,
    splits: tuple[Split, ...],
    dataset: str,
    study: ScopeStudy | None,
    default: str | None,
) -> str | None:
    implied = [s.dataset.task_kind for s in splits[:1]] + ([study.task_kind] if study else [])
    if value and value not in TaskKind.values:
        raise ScopeError("kind", f"one of {', '.join(TaskKind.values)}, not {value[:40]!r}")
    if len(set(implied + ([value] if value else []))) > 1:
        raise ScopeError(
            "kind",
            f"the split and study chosen hold {' and '.join(sorted(set(implied)))} "
            f"ratings{f', not {value}' if value else ''}",
        )
    if value or implied:
        return value or implied[0]
    if dataset:
        return Dataset.objects.filter(name=dataset).values_list("task_kind", flat=True).first()
    return default
