"""Documented filters for the annotation endpoints (help texts appear in the schema)."""

from __future__ import annotations

import django_filters as filters
from django import forms
from drf_spectacular.utils import extend_schema_field

from ambisite.query import MAX_ID
from annotations.models import Rater, Rating, Sample, Setup, Split


@extend_schema_field({"type": "integer", "minimum": 1, "maximum": MAX_ID})
class IdFilter(filters.NumberFilter):
    """A row id: a whole number from 1 to the largest bigint, else 400 naming the filter
    (a NumberFilter passes 2**70 or 1.5 on to the database); the schema says the same."""

    field_class = forms.IntegerField

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", MAX_ID)
        super().__init__(*args, **kwargs)


class StrictBooleanField(forms.NullBooleanField):
    """true/false (or 1/0); empty is no filter; anything else is a 400 naming the filter
    (Django's NullBooleanField reads any other word as "no filter")."""

    widget = forms.TextInput  # NullBooleanSelect would read any other word as empty
    VALUES = {"true": True, "1": True, "false": False, "0": False}

    def to_python(self, value):
        if value in (None, ""):
            return None
        if isinstance(value, bool):
            return value
        try:
            return self.VALUES[str(value).strip().lower()]
        except KeyError:
            raise forms.ValidationError("Give true or false.", code="invalid") from None

    def validate(self, value):
        pass


class StrictBooleanFilter(filters.BooleanFilter):
    field_class = StrictBooleanField


class SplitFilter(filters.FilterSet):
    dataset = filters.CharFilter(field_name="dataset__name", help_text="Dataset name.")

    class Meta:
        model = Split
        fields = ["dataset", "name"]


class SetupFilter(filters.FilterSet):
    homonym = filters.CharFilter(field_name="homonym__form", help_text="Homonym form.")

    class Meta:
        model = Setup
        fields = ["homonym"]


class SampleFilter(filters.FilterSet):
    dataset = filters.CharFilter(field_name="split__dataset__name", help_text="Dataset name.")
    split = filters.CharFilter(field_name="split__name", help_text="Split name, e.g. dev.")
    homonym = filters.CharFilter(
        field_name="story__setup__homonym__form", help_text="Homonym form, e.g. bank."
    )
    setup = IdFilter(field_name="story__setup_id", help_text="Setup id.")
    has_ending = StrictBooleanFilter(
        method="filter_has_ending",
        help_text="true: stories with an ending; false: open-ended stories only.",
    )
    study = filters.CharFilter(
        field_name="studies__slug", help_text="Slug of a study the samples belong to."
    )

    class Meta:
        model = Sample
        fields = ["dataset", "split", "homonym", "setup", "has_ending", "study"]

    def filter_has_ending(self, queryset, name, value):
        return queryset if value is None else queryset.with_ending(value)


class RatingFilter(filters.FilterSet):
    dataset = filters.CharFilter(
        field_name="sample__split__dataset__name", help_text="Dataset name."
    )
    split = filters.CharFilter(field_name="sample__split__name", help_text="Split name.")
    sample = IdFilter(field_name="sample_id", help_text="Sample (database) id.")
    rater = filters.CharFilter(field_name="rater__pseudonym", help_text="Rater pseudonym.")
    rater_kind = filters.ChoiceFilter(
        field_name="rater__kind",
        choices=Rater.Kind.choices,
        help_text="imported, participant or researcher.",
    )
    study = filters.CharFilter(
        field_name="rater__participant__study__slug",
        help_text="Slug of a study: only its participants' ratings.",
    )
    include_excluded = StrictBooleanFilter(
        method="filter_include_excluded",
        help_text="true: also ratings of excluded raters (flagged by rater_excluded).",
    )

    class Meta:
        model = Rating
        fields = ["dataset", "split", "sample", "rater", "rater_kind", "study"]

    @property
    def qs(self):
        queryset = super().qs
        if not self.form.cleaned_data.get("include_excluded"):
            queryset = queryset.valid()
        return queryset

    def filter_include_excluded(self, queryset, name, value):
        return queryset  # applied in ``qs`` so that the default (false) also filters
