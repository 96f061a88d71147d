from __future__ import annotations

from django import forms
from django.conf import settings

from annotations.models import Sense
from studies.models import TIME_LIMIT_MAX_MINUTES

from .models import Reviewed


class PairForm(forms.Form):
    word = forms.CharField(max_length=100)
    meaning_1 = forms.CharField(max_length=500)
    example_1 = forms.CharField(max_length=500, required=False)
    pos_1 = forms.CharField(max_length=20, required=False, label="Part of speech 1")
    meaning_2 = forms.CharField(max_length=500)
    example_2 = forms.CharField(max_length=500, required=False)
    pos_2 = forms.CharField(max_length=20, required=False, label="Part of speech 2")
    flag_pos = forms.BooleanField(
        required=False, initial=True, label="Flag out pairs of different parts of speech"
    )


class PoolImportForm(forms.Form):
    file = forms.FileField(help_text="JSON list or tab-separated with a header line.")
    flag_pos = forms.BooleanField(
        required=False, initial=True, label="Flag out pairs of different parts of speech"
    )


class ReviewForm(forms.Form):
    decision = forms.ChoiceField(
        choices=[(Reviewed.Decision.ACCEPTED, "Accept"), (Reviewed.Decision.REJECTED, "Reject")]
    )
    edited_text = forms.CharField(
        required=False,
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 2}),
        label="Edited text (empty: keep the writer's)",
    )
    reason = forms.CharField(required=False, max_length=2000, label="Reason (needed to reject)")


class SentenceSensesForm(forms.Form):
    """The two senses a sentence is assigned to (the service checks they are its word's)."""

    sense_a = forms.ModelChoiceField(Sense.objects.all(), label="Meaning 1")
    sense_b = forms.ModelChoiceField(Sense.objects.all(), label="Meaning 2")
    reason = forms.CharField(required=False, max_length=2000)


class EndingSenseForm(forms.Form):
    """The sense an ending is assigned to (the service checks it is its story's)."""

    sense = forms.ModelChoiceField(Sense.objects.all())
    reason = forms.CharField(required=False, max_length=2000)


def endpoint_choices() -> list[tuple[str, str]]:
    return [(name, name) for name in sorted(getattr(settings, "LLM_ENDPOINTS", {}) or {})]


class GenerateForm(forms.Form):
    endpoint = forms.ChoiceField(choices=[])
    model = forms.CharField(max_length=200)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["endpoint"].choices = endpoint_choices()  # type: ignore[attr-defined]


class PrecontextForm(forms.Form):
    text = forms.CharField(max_length=4000, widget=forms.Textarea(attrs={"rows": 3}))


class WritingStudyForm(forms.Form):
    title = forms.CharField(max_length=200)
    slug = forms.SlugField(max_length=64, label="Short name in the link")
    per_participant = forms.IntegerField(
        min_value=1,
        max_value=200,
        required=False,
        help_text="Empty: the paper's 5 sentences or 20 endings.",
    )
    time_limit_minutes = forms.IntegerField(
        min_value=1,
        max_value=TIME_LIMIT_MAX_MINUTES,
        required=False,
        label="Time limit (minutes)",
        help_text="Empty: 60 minutes.",
    )
    contact = forms.CharField(max_length=200, required=False, label="Researcher contact")


class RatingStudyForm(forms.Form):
    title = forms.CharField(max_length=200)
    slug = forms.SlugField(max_length=64, label="Short name in the link")
    dataset = forms.SlugField(max_length=64, required=False, help_text="Empty: ambistory-written.")
    split = forms.SlugField(max_length=64)
    ratings_per_sample = forms.IntegerField(
        min_value=1, max_value=50, required=False, help_text="Empty: 5, as in the paper."
    )
