"""Streamed exports of annotation data: reference jsonl, AmbiStory JSON, ratings CSV/jsonl.

Each reads the rating scope (:mod:`annotations.scope`): ``?study=`` counts only the study's
own ratings, and a parameter the export does not know is a 400 naming it."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers

from annotations.exporters import iter_ambistory_json, iter_reference_jsonl
from annotations.models import RatingQuerySet, Sample, SampleQuerySet, TaskKind
from annotations.rating_exports import iter_ratings_csv, iter_ratings_jsonl, ordered_for_export
from annotations.scope import RatingScope, ScopeError, parse_scope

from .streaming import SplitQuery, StreamingExportView


def split_scope(params) -> RatingScope:
    """One split's scope for the split exports: ``dataset`` defaults to ambistory, ``split``
    is required, ``study`` narrows the ratings to the study's own; these files are written
    on the current texts, so ``include_outdated`` is refused."""
    merged = params.copy()  # a QueryDict keeps every value, so a repeated one is refused
    merged.setdefault("dataset", "ambistory")
    scope = parse_scope(merged, default_kind=None)
    if not params.get("split") or scope.split is None:
        raise ScopeError("split", "give one split by name (e.g. dev)")
    if scope.include_outdated:
        raise ScopeError("include_outdated", "this export holds the current texts' ratings only")
    return scope


class SplitExportView(StreamingExportView):
    """A file of one split; the ratings written are those of the rating scope."""

    def read_query(self, params) -> dict:
        return {"scope": split_scope(params)}

    def samples_and_ratings(self, query: dict) -> tuple[SampleQuerySet, RatingQuerySet]:
        scope: RatingScope = query["scope"]
        return Sample.objects.filter(split=scope.split), scope.ratings()

    def stem(self, query: dict) -> str:
        scope: RatingScope = query["scope"]
        name = scope.split.name if scope.split else "split"
        return f"{name}_{scope.study.slug}" if scope.study else name


def _file(media_type: str, description: str, kind=OpenApiTypes.STR) -> dict:
    return {(200, media_type): OpenApiResponse(kind, description=description)}


class ReferenceExportView(SplitExportView):
    """A split's official reference jsonl: ``{"id": "0", "label": [4, 5, 3, 1, 5]}``."""

    media_type = "application/jsonl"
    extension = "jsonl"
    query_serializer = SplitQuery

    @extend_schema(
        operation_id="exports_reference",
        parameters=[SplitQuery],
        responses=_file("application/jsonl", "One {id, label} object per line."),
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def chunks(self, query, **kwargs):
        samples, ratings = self.samples_and_ratings(query)
        keep = query["scope"].include_excluded
        return iter_reference_jsonl(samples, include_excluded=keep, ratings=ratings)

    def filename(self, query, **kwargs):
        return f"{self.stem(query)}_solution.jsonl"


class AmbiStoryExportView(SplitExportView):
    """A split in the AmbiStory JSON format (the import format), ratings recomputed."""

    media_type = "application/json"
    extension = "json"
    query_serializer = SplitQuery

    @extend_schema(
        operation_id="exports_ambistory",
        parameters=[SplitQuery],
        responses={
            (200, "application/json"): OpenApiResponse(
                {"type": "object", "additionalProperties": {"type": "object"}},
                description='{"0": {"homonym": ..., "choices": [...], ...}, ...}',
            )
        },
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def chunks(self, query, **kwargs):
        samples, ratings = self.samples_and_ratings(query)
        keep = query["scope"].include_excluded
        return iter_ambistory_json(samples, include_excluded=keep, ratings=ratings)

    def filename(self, query, **kwargs):
        return f"{self.stem(query)}.json"


class RatingsQuery(serializers.Serializer):
    """The rating scope's parameters, for the schema (read by ``parse_scope``)."""

    dataset = serializers.CharField(required=False, help_text="Dataset name.")
    split = serializers.CharField(required=False, help_text="Split name (e.g. dev) or id.")
    study = serializers.CharField(
        required=False, help_text="Study slug (or id): only its own participants' ratings."
    )
    kind = serializers.ChoiceField(
        TaskKind.choices, required=False, help_text="Only ratings of this task kind."
    )
    include_excluded = serializers.BooleanField(
        default=False, help_text="Also the ratings of excluded raters (see rater_excluded)."
    )
    include_outdated = serializers.BooleanField(
        default=False, help_text="Also ratings given on an earlier version of a text."
    )


class RatingsExportView(StreamingExportView):
    generator: Callable[[RatingQuerySet], Iterator[str]]

    def read_query(self, params) -> dict:
        return {"scope": parse_scope(params, default_kind=None)}

    def chunks(self, query, **kwargs):
        return self.generator(ordered_for_export(query["scope"].ratings()))

    def filename(self, query, **kwargs):
        scope: RatingScope = query["scope"]
        parts = [s.name for s in scope.splits[:1]] + ([scope.study.slug] if scope.study else [])
        return "_".join(["ratings", *parts]) + f".{self.extension}"


class RatingsCsvExportView(RatingsExportView):
    """All ratings in long format as CSV (header line first), raters by pseudonym."""

    media_type = "text/csv"
    extension = "csv"
    generator = staticmethod(iter_ratings_csv)

    @extend_schema(
        operation_id="exports_ratings_csv",
        parameters=[RatingsQuery],
        responses=_file("text/csv", "Long-format CSV."),
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)


class RatingsJsonlExportView(RatingsExportView):
    """All ratings in long format as jsonl, one rating per line, raters by pseudonym."""

    media_type = "application/jsonl"
    extension = "jsonl"
    generator = staticmethod(iter_ratings_jsonl)

    @extend_schema(
        operation_id="exports_ratings_jsonl",
        parameters=[RatingsQuery],
        responses=_file("application/jsonl", "One rating per line."),
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)
