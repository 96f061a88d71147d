"""Researcher pages for a sample's texts: the study's own correction (``sample_texts``) and
the confirmed change of the reference text (``reference_texts``)."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse

from ambisite.access import researcher_required
from annotations.models import Sample
from annotations.reference import reference_edit_impact

from . import researcher_reads, shown_texts, text_corrections
from .forms import ReferenceTextsForm, SampleTextsForm
from .models import Study
from .services import StudyError


def _study_sample(pk: int, sample_pk: int) -> tuple[Study, Sample]:
    study = get_object_or_404(Study, pk=pk)
    samples = Sample.objects.filter(studies=study).with_related()
    return study, get_object_or_404(samples, pk=sample_pk)


@researcher_required
def sample_texts(request: HttpRequest, pk: int, sample_pk: int) -> HttpResponse:
    """Correct the texts one of the study's samples shows in this study: a saved change is
    the study's own version, the study's ratings of the old text are kept (shown as
    outdated) and the sample is re-queued; the reference texts and labels stay."""
    study, sample = _study_sample(pk, sample_pk)
    initial = shown_texts.shown_texts_of(study, sample)
    form = SampleTextsForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            changed = text_corrections.sample_texts_correct(
                study=study, sample=sample, texts=form.cleaned_data, by=request.user
            )
        except StudyError as exc:
            messages.error(request, str(exc))
        else:
            if changed:
                n = len(changed)
                messages.success(
                    request,
                    f"This study's version of the text saved; {n} sample{'s' if n != 1 else ''}"
                    " re-queued if the study is running. Reference labels are unchanged.",
                )
            return redirect(reverse("studies:detail", args=[pk]) + f"#sample-{sample.pk}")
    ctx = {
        "study": study,
        "sample": sample,
        "form": form,
        "versions": shown_texts.shown_versions_of(study, sample),
        "history": researcher_reads.sample_text_history(sample),
        "ratings": researcher_reads.sample_study_ratings(study, sample),
    }
    return render(request, "studies/sample_texts.html", ctx)


@researcher_required
def reference_texts(request: HttpRequest, pk: int, sample_pk: int) -> HttpResponse:
    """Change the reference texts of a sample, in two steps: the first POST shows how many
    samples' labels change, the second (sending that number back) makes the change."""
    study, sample = _study_sample(pk, sample_pk)
    form = ReferenceTextsForm(request.POST or None, initial=SampleTextsForm.initial_for(sample))
    impact = None
    if request.method == "POST" and form.is_valid():
        texts = {k: v for k, v in form.cleaned_data.items() if k != "confirm_labels"}
        confirmed = form.cleaned_data["confirm_labels"]
        if confirmed is not None:
            try:
                done = text_corrections.sample_reference_edit(
                    sample=sample, texts=texts, confirm_labels=confirmed, by=request.user
                )
            except StudyError as exc:
                messages.error(request, str(exc))
            else:
                messages.success(request, _done_message(done.impact.labels))
                return redirect(reverse("studies:detail", args=[pk]) + f"#sample-{sample.pk}")
        impact = reference_edit_impact(sample=sample, texts=texts)
    ctx = {"study": study, "sample": sample, "form": form, "impact": impact}
    return render(request, "studies/reference_texts.html", ctx)


def _done_message(labels: int) -> str:
    return (
        f"Reference texts changed: the labels of {labels} sample{'s' if labels != 1 else ''}"
        " changed. Scoring pages now say that the split's labels differ from the imported ones."
    )
