"""Streamed exports of annotation data: reference jsonl, AmbiStory JSON, ratings CSV/jsonl."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers

from annotations.exporters import iter_ambistory_json, iter_reference_jsonl
from annotations.models import Rating, RatingQuerySet, Sample, Split
from annotations.rating_exports import iter_ratings_csv, iter_ratings_jsonl, ratings_for_export

from .streaming import SplitQuery, StreamingExportView


def _split_samples(query: dict):
    split = get_object_or_404(Split, dataset__name=query["dataset"], name=query["split"])
    return Sample.objects.filter(split=split)


def _file(media_type: str, description: str, kind=OpenApiTypes.STR) -> dict:
    return {(200, media_type): OpenApiResponse(kind, description=description)}


class ReferenceExportView(StreamingExportView):
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
        samples = _split_samples(query)
        return iter_reference_jsonl(samples, include_excluded=query["include_excluded"])

    def filename(self, query, **kwargs):
        return f"{query['split']}_solution.jsonl"


class AmbiStoryExportView(StreamingExportView):
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
        samples = _split_samples(query)
        return iter_ambistory_json(samples, include_excluded=query["include_excluded"])

    def filename(self, query, **kwargs):
        return f"{query['split']}.json"


class RatingsQuery(serializers.Serializer):
    dataset = serializers.CharField(required=False, help_text="Dataset name.")
    split = serializers.CharField(required=False, help_text="Split name, e.g. dev.")
    include_excluded = serializers.BooleanField(
        default=False, help_text="Also the ratings of excluded raters (see rater_excluded)."
    )


class RatingsExportView(StreamingExportView):
    query_serializer = RatingsQuery
    generator: Callable[[RatingQuerySet], Iterator[str]]

    def chunks(self, query, **kwargs):
        ratings: RatingQuerySet = Rating.objects.all()
        if "dataset" in query:
            ratings = ratings.filter(sample__split__dataset__name=query["dataset"])
        if "split" in query:
            ratings = ratings.filter(sample__split__name=query["split"])
        ratings = ratings_for_export(ratings, include_excluded=query["include_excluded"])
        return self.generator(ratings)

    def filename(self, query, **kwargs):
        return f"ratings{'_' + query['split'] if 'split' in query else ''}.{self.extension}"


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
