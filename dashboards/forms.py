"""Filters shared by the dashboards and the exclusion form."""

from __future__ import annotations

from django import forms
from django.db.models import Exists, OuterRef

from annotations.models import (
    Rater,
    Rating,
    RatingQuerySet,
    Sample,
    SampleQuerySet,
    Split,
    TaskKind,
)
from studies.models import Study

ENDING_CHOICES = [("", "all stories"), ("open", "open-ended only"), ("ended", "ended only")]


class SampleFilterForm(forms.Form):
    """Which samples a dashboard looks at; every field is optional (all samples)."""

    split = forms.ModelChoiceField(
        Split.objects.select_related("dataset"), required=False, empty_label="all splits"
    )
    study = forms.ModelChoiceField(Study.objects.all(), required=False, empty_label="no study")
    homonym = forms.CharField(required=False, max_length=100)
    sense = forms.CharField(required=False, max_length=200)
    ending = forms.ChoiceField(choices=ENDING_CHOICES, required=False)
    include_excluded = forms.BooleanField(
        required=False, label="include excluded raters", help_text="off: valid ratings only"
    )

    def samples(self) -> SampleQuerySet:
        """The filtered samples (call after ``is_valid``; invalid fields are ignored)."""
        data = self.cleaned_data if self.is_bound and self.is_valid() else {}
        qs: SampleQuerySet = Sample.objects.all()
        if not data.get("split"):  # one task kind at a time: scores of kinds never mix
            qs = qs.of_kind(self.task_kind)
        if data.get("split"):
            qs = qs.filter(split=data["split"])
        if data.get("study"):
            qs = qs.filter(studies=data["study"])
        if data.get("homonym"):
            qs = qs.filter(story__setup__homonym__form__iexact=data["homonym"].strip())
        if data.get("sense"):
            qs = qs.filter(sense__gloss__icontains=data["sense"].strip())
        if data.get("ending"):
            qs = qs.with_ending(data["ending"] == "ended")
        return qs

    @property
    def task_kind(self) -> str:
        """The kind the dashboards look at: the chosen split's or study's, else
        plausibility."""
        data = self.cleaned_data if self.is_bound and self.is_valid() else {}
        if data.get("split"):
            return data["split"].dataset.task_kind
        if data.get("study"):
            return data["study"].task_kind
        return TaskKind.PLAUSIBILITY

    @property
    def keep_excluded(self) -> bool:
        return bool(self.is_bound and self.is_valid() and self.cleaned_data["include_excluded"])

    @property
    def filters_samples(self) -> bool:
        """Whether any field narrows the samples (all samples otherwise)."""
        data = self.cleaned_data if self.is_bound and self.is_valid() else {}
        return any(data.get(name) for name in ("split", "study", "homonym", "sense", "ending"))

    @property
    def chosen_study(self) -> Study | None:
        return self.cleaned_data.get("study") if self.is_bound and self.is_valid() else None

    def scoped_ratings(self) -> RatingQuerySet:
        """Ratings of the filtered samples (with a study chosen, only its participants'),
        excluded raters' included."""
        ratings: RatingQuerySet = Rating.objects.filter(kind=self.task_kind)
        if self.filters_samples:  # a semi-join over every rating costs as much as the scan
            ratings = ratings.filter(sample__in=self.samples())
        if self.chosen_study is not None:
            ratings = ratings.filter(rater__participant__study=self.chosen_study)
        return ratings

    def ratings(self) -> RatingQuerySet:
        """The ratings a dashboard counts: :meth:`scoped_ratings`, valid ones only unless
        the toggle keeps the excluded raters."""
        ratings = self.scoped_ratings()
        return ratings if self.keep_excluded else ratings.valid()

    def scope(self, *, names: int = 10) -> dict:
        """What :meth:`ratings` counts, for the page to say: the study (or all sources), and
        the excluded raters among the scoped ratings (their pseudonyms, at most ``names``)
        with whether they are left out or kept."""
        has_ratings = Exists(self.scoped_ratings().filter(rater=OuterRef("pk")))
        excluded = Rater.objects.excluded().filter(has_ratings).order_by("pseudonym", "id")
        shown = list(excluded.values_list("pseudonym", flat=True)[:names])
        n_excluded = len(shown) if len(shown) < names else excluded.count()
        return {
            "study": self.chosen_study,
            "keep_excluded": self.keep_excluded,
            "n_excluded": n_excluded,
            "excluded": shown,
            "more": n_excluded - len(shown),
        }

    def query_string(self) -> str:
        """The filter as a query string, for links and JSON endpoints."""
        if not self.is_bound:
            return ""
        keep = {k: v for k, v in self.data.items() if k in self.fields and v}
        from urllib.parse import urlencode

        return urlencode(keep)


def sample_filter(params) -> SampleFilterForm:
    return SampleFilterForm(params or None)


class ExclusionForm(forms.Form):
    action = forms.ChoiceField(choices=[("exclude", "exclude"), ("include", "include")])
    reason = forms.CharField(required=False, max_length=1000, widget=forms.TextInput)
    next = forms.CharField(required=False, max_length=2000)

    def clean(self):
        data = super().clean() or {}
        if data.get("action") == "exclude" and not (data.get("reason") or "").strip():
            raise forms.ValidationError("Give a reason for the exclusion.")
        return data


def rater_or_none(rater_id: int) -> Rater | None:
    return Rater.objects.filter(pk=rater_id).first()
