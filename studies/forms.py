from __future__ import annotations

from django import forms
from django.db.models import QuerySet
from django.forms import inlineformset_factory

from annotations.models import Sample, Split

from . import defaults
from .models import CheckQuestion, Study

SCORES = [(n, str(n)) for n in range(1, 6)]


class StudyForm(forms.ModelForm):
    """Study settings plus which samples to use (a split, optionally filtered)."""

    ENDINGS = [("all", "All stories"), ("with", "With an ending"), ("without", "Without")]

    split = forms.ModelChoiceField(
        queryset=Split.objects.select_related("dataset"),
        required=False,
        help_text="Samples come from this split. Leave empty to keep the current samples.",
    )
    endings = forms.ChoiceField(choices=ENDINGS, initial="all")
    homonyms = forms.CharField(
        required=False, help_text="Only these homonyms (comma-separated); empty = all."
    )
    prolific_completion_url = forms.URLField(
        assume_scheme="https", help_text="{code} is replaced by the completion or screen-out code."
    )
    limit = forms.IntegerField(
        required=False, min_value=1, help_text="At most this many samples (whole setups)."
    )

    class Meta:
        model = Study
        fields = [
            "title",
            "slug",
            "ratings_per_sample",
            "samples_per_participant",
            "attention_checks_per_batch",
            "time_limit_minutes",
            "completion_code",
            "screenout_code",
            "prolific_completion_url",
            "guidelines",
        ]
        widgets = {"guidelines": forms.Textarea(attrs={"rows": 12})}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if not self.instance.pk:
            self.initial.setdefault("guidelines", defaults.GUIDELINES)
            self.initial.setdefault("completion_code", defaults.new_code())
            self.initial.setdefault("screenout_code", defaults.new_code())
            self.fields["split"].required = True
        elif self.instance.status != Study.Status.DRAFT:
            for name in ("split", "endings", "homonyms", "limit"):
                self.fields[name].disabled = True

    def clean_prolific_completion_url(self) -> str:
        url = self.cleaned_data["prolific_completion_url"]
        if "{code}" not in url:
            raise forms.ValidationError("The URL must contain {code}.")
        return url

    def samples(self) -> QuerySet[Sample] | None:
        """The chosen samples, or None to keep the study's current ones."""
        data = self.cleaned_data
        if not data.get("split"):
            return None
        qs = Sample.objects.filter(split=data["split"])
        if data["endings"] != "all":
            qs = qs.with_ending(data["endings"] == "with")
        words = [w.strip() for w in data.get("homonyms", "").split(",") if w.strip()]
        if words:
            qs = qs.filter(story__setup__homonym__form__in=words)
        qs = qs.order_by("position")
        if data.get("limit"):
            ids = list(qs.values_list("id", flat=True)[: data["limit"]])
            qs = Sample.objects.filter(id__in=ids)
        return qs

    def settings(self) -> dict:
        return {name: self.cleaned_data[name] for name in self.Meta.fields}


CheckQuestionFormSet = inlineformset_factory(
    Study,
    CheckQuestion,
    fields=[
        "order",
        "homonym",
        "precontext",
        "sentence",
        "ending",
        "meaning",
        "example_sentence",
        "expected",
        "tolerance",
        "in_qualification",
        "as_attention_check",
    ],
    widgets={
        "precontext": forms.Textarea(attrs={"rows": 2}),
        "sentence": forms.Textarea(attrs={"rows": 1}),
        "ending": forms.Textarea(attrs={"rows": 1}),
        "meaning": forms.Textarea(attrs={"rows": 1}),
        "example_sentence": forms.Textarea(attrs={"rows": 1}),
    },
    extra=1,
    can_delete=True,
)


class RatingForm(forms.Form):
    score = forms.TypedChoiceField(choices=SCORES, coerce=int, widget=forms.RadioSelect)
    nonsensical = forms.BooleanField(required=False)
    comment = forms.CharField(required=False, max_length=2000, widget=forms.Textarea)
    shown_at = forms.DateTimeField(required=False, widget=forms.HiddenInput)


class QualificationForm(forms.Form):
    """One 1-5 choice per qualification question."""

    def __init__(self, *args, questions: list[CheckQuestion], **kwargs):
        super().__init__(*args, **kwargs)
        self.questions = questions
        for q in questions:
            self.fields[f"q{q.pk}"] = forms.TypedChoiceField(
                choices=SCORES, coerce=int, widget=forms.RadioSelect, label=q.meaning
            )

    def answers(self) -> dict[int, int]:
        return {q.pk: self.cleaned_data[f"q{q.pk}"] for q in self.questions}

    def rows(self):
        return [(q, self[f"q{q.pk}"]) for q in self.questions]
