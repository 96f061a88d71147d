"""Forms for starting runs and training jobs from the site."""

from __future__ import annotations

from django import forms
from django.conf import settings

from annotations.models import Split
from annotations.safe_input import InputError, loads, subject
from predictions.backends import registry
from predictions.models import TrainedModel


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


# What a new user needs to know before choosing a backend; the default runs with no model.
DEFAULT_BACKEND = "constant"
BACKEND_NOTES = {
    "constant": "majority-label baseline (4), needs no model",
    "random": "seeded random baseline, needs no model",
    "embedding": "MiniLM similarity, needs the local MiniLM files and a fit split",
    "crossencoder": "needs a trained model: model=<id> or path=<directory>",
    "biencoder": "needs a trained model: model=<id> or path=<directory>",
    "quality": "stacked predictor, needs a saved one (path/model) or a fit split",
    "openai_chat": "needs endpoint=<name> and model=<name> of the operator's LLM_ENDPOINTS",
    "hf_causal": "needs a local model directory: model_path=<directory>",
}


def backend_choices() -> list[tuple[str, str]]:
    """The registry's backends, the ones that need nothing first, each with what it needs."""
    names = sorted(registry(), key=lambda name: (name != DEFAULT_BACKEND, name != "random", name))
    return [(n, f"{n} — {BACKEND_NOTES[n]}" if n in BACKEND_NOTES else n) for n in names]


def default_split() -> Split | None:
    """The split a new run starts on: the first dev split (it has ratings), else the first."""
    splits = Split.objects.order_by("id")
    return splits.filter(name="dev").first() or splits.first()


class RunForm(forms.Form):
    prefix = "run"

    name = forms.CharField(max_length=200, required=False)
    backend = forms.ChoiceField(initial=DEFAULT_BACKEND)
    split = forms.ModelChoiceField(
        queryset=Split.objects.select_related("dataset"), empty_label=None
    )
    fit_split = forms.CharField(
        max_length=200,
        required=False,
        label="Fit split",
        help_text="split(s) of the same dataset the backend fits on, e.g. train or train,dev; "
        "never the split it predicts",
    )
    params = JSONParamsField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3, "placeholder": '{"seed": 1}'}),
        help_text='JSON, e.g. {"tune": true} (with fit split train) for the tuned constant.',
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        backend = self.fields["backend"]
        assert isinstance(backend, forms.ChoiceField)
        backend.choices = backend_choices()
        if not self.is_bound:
            self.fields["split"].initial = default_split()
        self.fields["params"].help_text += endpoints_help()


def endpoints_help() -> str:
    """The LLM endpoints a run may name (``settings.LLM_ENDPOINTS``), with their models."""
    endpoints = getattr(settings, "LLM_ENDPOINTS", {}) or {}
    if not endpoints:
        return " No LLM endpoints are configured (LLM_ENDPOINTS)."
    named = "; ".join(
        f"{name}: {'any model' if '*' in spec['models'] else ', '.join(spec['models'])}"
        for name, spec in sorted(endpoints.items())
    )
    return f' LLM runs: {{"endpoint": ..., "model": ...}} with {named}.'


class TrainForm(forms.Form):
    prefix = "train"

    name = forms.CharField(max_length=200, required=False)
    kind = forms.ChoiceField(
        choices=TrainedModel.Kind.choices,
        initial=TrainedModel.Kind.BIENCODER,
        required=False,
        help_text="the bi-encoder is the quality predictor's part (left empty: cross-encoder)",
    )
    split = forms.ModelChoiceField(
        queryset=Split.objects.select_related("dataset"),
        help_text="the labelled split it learns from",
    )
    fit_split = forms.CharField(
        max_length=200,
        required=False,
        label="Fit split",
        help_text="to learn from several splits together, all of them, e.g. train,dev",
    )
    params = JSONParamsField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2, "placeholder": '{"epochs": 3}'}),
        help_text="epochs, seed, batch_size, lr, max_seq_length, limit (bi-encoder: layer)",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if not self.is_bound:  # training learns from train, never from the split it is scored on
            self.fields["split"].initial = Split.objects.filter(name="train").order_by("id").first()


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

    prefix = "derive"

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
