"""Forms for starting runs and training jobs from the site."""

from __future__ import annotations

from django import forms

from annotations.models import Split
from annotations.safe_input import InputError, loads, subject

from .backends import registry
from .models import TrainedModel


class JSONParamsField(forms.CharField):
    def to_python(self, value):
        text = (super().to_python(value) or "").strip() or "{}"
        try:
            parsed = loads(text)
        except InputError as exc:
            raise forms.ValidationError(subject(str(exc), "the parameters")) from None
        if not isinstance(parsed, dict):
            raise forms.ValidationError("parameters must be a JSON object")
        return parsed


class RunForm(forms.Form):
    name = forms.CharField(max_length=200, required=False)
    backend = forms.ChoiceField()
    split = forms.ModelChoiceField(queryset=Split.objects.select_related("dataset"))
    params = JSONParamsField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3, "placeholder": '{"seed": 1}'}),
        help_text='JSON, e.g. {"tune": true, "fit_split": "train"} for the tuned constant.',
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["backend"].choices = [(name, name) for name in sorted(registry())]


class TrainForm(forms.Form):
    name = forms.CharField(max_length=200, required=False)
    kind = forms.ChoiceField(
        choices=TrainedModel.Kind.choices,
        initial=TrainedModel.Kind.BIENCODER,
        required=False,
        help_text="left out: cross-encoder",
    )
    split = forms.ModelChoiceField(queryset=Split.objects.select_related("dataset"))
    params = JSONParamsField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2, "placeholder": '{"epochs": 3}'}),
        help_text="epochs, seed, batch_size, lr, max_seq_length, limit (bi-encoder: layer)",
    )


def run_ids(text: str) -> list[int]:
    try:
        return [int(part) for part in text.replace(" ", "").split(",") if part]
    except ValueError:
        raise forms.ValidationError("give run numbers separated by commas") from None


class DeriveForm(forms.Form):
    KINDS = [
        ("calibrate", "calibrate"),
        ("squash", "squash"),
        ("pair_blend", "pair blend"),
        ("stack", "stack"),
    ]
    FITS = [
        ("oof", "out-of-fold on the same split, folds grouped by homonym"),
        ("split", "on the fit runs (another split)"),
        ("none", "not fitted: use params"),
    ]

    name = forms.CharField(max_length=200, required=False)
    kind = forms.ChoiceField(choices=KINDS)
    sources = forms.CharField(help_text="source run numbers, e.g. 3,5")
    fit = forms.ChoiceField(choices=FITS)
    fit_sources = forms.CharField(required=False, help_text="for 'split': the same backends' runs")
    params = JSONParamsField(required=False, widget=forms.Textarea(attrs={"rows": 1}))

    def clean_sources(self) -> list[int]:
        return run_ids(self.cleaned_data["sources"])

    def clean_fit_sources(self) -> list[int]:
        return run_ids(self.cleaned_data.get("fit_sources") or "")
