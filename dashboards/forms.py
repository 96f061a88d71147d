"""Filters shared by the dashboards and the exclusion form.

Which ratings count is the rating scope (:mod:`annotations.scope`), parsed once per request;
the dashboards add their own sample filters (homonym, sense, stories) on top."""

from __future__ import annotations

from urllib.parse import urlencode

from django import forms
from django.core.exceptions import BadRequest
from django.db.models import Exists, OuterRef

from annotations.models import Rater, RatingQuerySet, SampleQuerySet, Split, TaskKind
from annotations.scope import ITEM_NAMES, RatingScope, parse_scope
from studies.models import Study

ENDING_CHOICES = [("", "all stories"), ("open", "open-ended only"), ("ended", "ended only")]
SAMPLE_PARAMS = ("homonym", "sense", "ending")


class SampleFilterForm(forms.Form):
    """Which samples and ratings a dashboard looks at; every field is optional. The scope's
    fields are shown here but read by :func:`annotations.scope.parse_scope`."""

    split = forms.ModelChoiceField(
        Split.objects.select_related("dataset"), required=False, empty_label="all splits"
    )
    study = forms.ModelChoiceField(Study.objects.all(), required=False, empty_label="no study")
    kind = forms.ChoiceField(
        choices=[("", "the split's or study's (else plausibility)"), *TaskKind.choices],
        required=False,
    )
    homonym = forms.CharField(required=False, max_length=100)
    sense = forms.CharField(required=False, max_length=200)
    ending = forms.ChoiceField(choices=ENDING_CHOICES, required=False)
    include_excluded = forms.BooleanField(
        required=False, label="include excluded raters", help_text="off: valid ratings only"
    )
    include_outdated = forms.BooleanField(
        required=False,
        label="include outdated ratings",
        help_text="off: only ratings of the texts as they are now",
    )

    def __init__(self, data, *, rating_scope: RatingScope):
        self.rating_scope = rating_scope
        super().__init__(data)
        if self.is_bound and not self.is_valid():
            name, errors = next(iter(self.errors.items()))
            raise BadRequest(f"{name}: {' '.join(str(e) for e in errors)}")

    def _sample_filter(self, name: str) -> str:
        return (self.cleaned_data.get(name) or "").strip() if self.is_bound else ""

    def samples(self) -> SampleQuerySet:
        """The filtered samples: the scope's, narrowed by homonym, sense and stories."""
        qs = self.rating_scope.samples()
        if homonym := self._sample_filter("homonym"):
            qs = qs.filter(story__setup__homonym__form__iexact=homonym)
        if sense := self._sample_filter("sense"):
            qs = qs.filter(sense__gloss__icontains=sense)
        if ending := self._sample_filter("ending"):
            qs = qs.with_ending(ending == "ended")
        return qs

    @property
    def task_kind(self) -> str:
        return self.rating_scope.kind or TaskKind.PLAUSIBILITY

    @property
    def keep_excluded(self) -> bool:
        return self.rating_scope.include_excluded

    @property
    def narrows_within_scope(self) -> bool:
        return any(self._sample_filter(name) for name in SAMPLE_PARAMS)

    @property
    def filters_samples(self) -> bool:
        """Whether any field narrows the samples (all samples of the kind otherwise)."""
        return self.rating_scope.narrows_samples or self.narrows_within_scope

    @property
    def chosen_study(self):
        return self.rating_scope.study

    def scoped_ratings(self) -> RatingQuerySet:
        """Ratings of the filtered samples in scope, before the valid/outdated rules."""
        samples = self.samples() if self.narrows_within_scope else None
        return self.rating_scope.rows(samples)

    def ratings(self) -> RatingQuerySet:
        """The ratings a dashboard counts: every page, chart and JSON endpoint uses these."""
        samples = self.samples() if self.narrows_within_scope else None
        return self.rating_scope.ratings(samples)

    def scope(self, *, names: int = 10) -> dict:
        """What :meth:`ratings` counts, for the page to say: the scope in words, and the
        excluded raters among the scoped ratings (their pseudonyms, at most ``names``)
        with whether they are left out or kept."""
        has_ratings = Exists(self.scoped_ratings().filter(rater=OuterRef("pk")))
        excluded = Rater.objects.excluded().filter(has_ratings).order_by("pseudonym", "id")
        shown = list(excluded.values_list("pseudonym", flat=True)[:names])
        n_excluded = len(shown) if len(shown) < names else excluded.count()
        return {
            "study": self.chosen_study.title if self.chosen_study else None,
            "text": self.rating_scope.describe(),
            "items": ITEM_NAMES.get(self.task_kind, "samples"),
            "keep_excluded": self.keep_excluded,
            "n_excluded": n_excluded,
            "excluded": shown,
            "more": n_excluded - len(shown),
        }

    def query_string(self) -> str:
        """The filter as a query string, for links and JSON endpoints."""
        keep = self.rating_scope.params()
        keep.update({name: self._sample_filter(name) for name in SAMPLE_PARAMS})
        return urlencode({k: v for k, v in keep.items() if v})


def sample_filter(params, *, known: tuple[str, ...] = (), samples: bool = True) -> SampleFilterForm:
    """The dashboards' one parser: the rating scope plus the sample filters; any other
    parameter than those and ``known`` (the page's own) is a 400 naming it. A page whose
    figures take the rating scope only (``samples=False``: task kinds, the papers' analyses)
    refuses the sample filters too, instead of accepting and ignoring them."""
    scope = parse_scope(params or {}, known=(*(SAMPLE_PARAMS if samples else ()), *known))
    data = None
    if params:
        data = {name: params.get(name) for name in SampleFilterForm.base_fields if name in params}
        # the scope resolved split and study (by id or name/slug): the form shows them by id
        data["split"] = str(scope.split.pk) if scope.split else ""
        data["study"] = str(scope.study.pk) if scope.study else ""
    return SampleFilterForm(data, rating_scope=scope)


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
