"""Prompt preview for researchers: the stored prompt versions and the exact messages a model
receives for a real sample, chosen by split and id."""

from __future__ import annotations

import json

from django.http import Http404, HttpResponse
from django.shortcuts import render

from ambisite.access import researcher_required
from ambisite.http import attachment
from ambisite.query import id_param
from annotations.models import Sample, Split, TaskKind
from predictions.prompts import Prompt, UnknownPrompt, all_prompts, get_prompt
from predictions.prompts import render as render_prompt
from predictions.prompts.sense_label import SENSE_OUTPUTS, render_sense_prompt
from predictions.runs.rows import backend_dict


def sample_dict(sample: Sample) -> dict:
    """A sample as backends see it: the text fields only, never labels."""
    return backend_dict(sample)


def _prompt_or_404(prompt_id: str) -> Prompt:
    try:
        return get_prompt(prompt_id)
    except UnknownPrompt:
        raise Http404(f"no prompt {prompt_id!r}") from None


def _chosen_sample(
    split_pk: str | None, dataset_id: str | None, kind: str = TaskKind.PLAUSIBILITY
) -> tuple[Split | None, Sample]:
    """The sample asked for, or the first sample of the split (or of any split of the
    prompt's task kind)."""
    samples = Sample.objects.with_related().of_kind(kind).order_by("split_id", "position")
    split_id = id_param({"split": split_pk}, "split")
    split = Split.objects.filter(pk=split_id).first() if split_id else None
    if split is not None:
        samples = samples.filter(split=split)
    if dataset_id:
        samples = samples.filter(dataset_id=dataset_id.strip())
    sample = samples.first()
    if sample is None:
        raise Http404("no such sample")
    return split or sample.split, sample


def _other_sense(sample: Sample) -> Sample | None:
    others = Sample.objects.with_related().filter(story=sample.story, split=sample.split)
    return others.exclude(pk=sample.pk).order_by("position").first()


def _sense_choice_preview(prompt: Prompt, query) -> dict:
    """The exact messages a sense-choice prompt sends for a real item, with the order of
    its candidates; nothing when no sense-choice item is stored."""
    if not Sample.objects.of_kind(TaskKind.SENSE_CHOICE).exists():
        return {}
    split, sample = _chosen_sample(query.get("split"), query.get("sample"), TaskKind.SENSE_CHOICE)
    sample = Sample.objects.with_related().prefetch_related("candidates").get(pk=sample.pk)
    messages, order = render_sense_prompt(prompt, sample_dict(sample))
    return {"split": split, "sample": sample, "messages_rendered": messages, "order": order}


@researcher_required
def prompt_list(request):
    return render(request, "predictions/prompts/list.html", {"prompts": all_prompts()})


@researcher_required
def prompt_detail(request, prompt_id: str):
    prompt = _prompt_or_404(prompt_id)
    context = {
        "prompt": prompt,
        "parameters_json": json.dumps(prompt.parameters, indent=2, ensure_ascii=False),
        "splits": Split.objects.select_related("dataset"),
    }
    if prompt.output in SENSE_OUTPUTS:
        context.update(_sense_choice_preview(prompt, request.GET))
    elif Sample.objects.of_kind(TaskKind.PLAUSIBILITY).exists():
        split, sample = _chosen_sample(request.GET.get("split"), request.GET.get("sample"))
        other = _other_sense(sample) if prompt.is_comparative else None
        context.update(split=split, sample=sample, other=other)
        if other is not None or not prompt.is_comparative:
            shown = sample_dict(sample), sample_dict(other) if other else None
            context["messages_rendered"] = render_prompt(prompt, *shown)
    return render(request, "predictions/prompts/detail.html", context)


@researcher_required
def prompt_download(request, prompt_id: str):
    prompt = _prompt_or_404(prompt_id)
    response = HttpResponse(prompt.to_json(), content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = attachment(f"{prompt.id}.json")
    return response
