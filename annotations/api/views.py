"""Read-only endpoints for datasets, splits, setups, samples and ratings (researchers only)."""

from __future__ import annotations

from django.db.models import Count, Exists, F, OuterRef, Prefetch

from ambisite.api import ReadOnlyViewSet
from annotations.models import Dataset, RaterExclusion, Rating, Sample, Setup, Split
from annotations.selectors import attach_official_sd

from . import filters, serializers


def _splits_with_counts():
    splits = Split.objects.select_related("dataset").annotate(n_samples=Count("samples"))
    return splits.order_by("dataset__name", "name")


class DatasetViewSet(ReadOnlyViewSet):
    """Datasets with their splits."""

    serializer_class = serializers.DatasetSerializer

    def get_queryset(self):
        return Dataset.objects.prefetch_related(Prefetch("splits", _splits_with_counts()))


class SplitViewSet(ReadOnlyViewSet):
    """Splits of every dataset, with their sample counts."""

    serializer_class = serializers.SplitSerializer
    filterset_class = filters.SplitFilter

    def get_queryset(self):
        return _splits_with_counts()


class SetupViewSet(ReadOnlyViewSet):
    """Setups: a precontext and an ambiguous sentence, with the endings of its stories."""

    serializer_class = serializers.SetupSerializer
    filterset_class = filters.SetupFilter

    def get_queryset(self):
        return Setup.objects.select_related("homonym").prefetch_related("stories")


class SampleViewSet(ReadOnlyViewSet):
    """Samples with their texts and the statistics of their valid ratings."""

    serializer_class = serializers.SampleSerializer
    filterset_class = filters.SampleFilter

    def get_queryset(self):
        """No ``sd`` in SQL: the samples shown get the official one (``get_serializer``), and
        the endpoint neither filters nor orders by it."""
        samples = Sample.objects.with_related().with_stats(sd=False)
        return samples.order_by("split_id", "position")

    def get_serializer(self, *args, **kwargs):
        """The samples shown get the official ``sd`` (``attach_official_sd``), not the
        database's ``stddev_samp``, which can differ in the last bit (and is not computed)."""
        if args and args[0] is not None:
            attach_official_sd(args[0] if kwargs.get("many") else [args[0]])
        return super().get_serializer(*args, **kwargs)


class RatingViewSet(ReadOnlyViewSet):
    """Ratings in long format: one row per (sample, rater), raters by pseudonym only."""

    serializer_class = serializers.RatingSerializer
    filterset_class = filters.RatingFilter

    def get_queryset(self):
        active = RaterExclusion.objects.filter(rater=OuterRef("rater_id"), revoked_at__isnull=True)
        return (
            Rating.objects.select_related("rater", "sample__split__dataset")
            .annotate(rater_excluded=Exists(active))
            .order_by("sample_id", F("position").asc(nulls_last=True), "id")
        )
