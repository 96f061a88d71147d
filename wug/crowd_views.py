"""The researcher's actions on use-pair crowd studies: thin views over ``wug.crowd``."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_POST

from ambisite.access import researcher_required
from wug.crowd import CrowdError, crowd_round_add, crowd_study_create
from wug.forms import CrowdStudyForm
from wug.models import CrowdStudy, Word


@require_POST
@researcher_required
def crowd_start(request, name: str):
    """Start a use-pair study of the word (a draft with round 1 and its gold pairs); the
    study page opens it."""
    word = get_object_or_404(Word, name=name)
    form = CrowdStudyForm(request.POST)
    if not form.is_valid():
        problems = "; ".join(
            f"{field}: {' '.join(map(str, errs))}" for field, errs in form.errors.items()
        )
        messages.error(request, f"The study was not started: {problems}")
        return redirect("wug:word", name=word.name)
    try:
        crowd = crowd_study_create(words=[word], by=request.user, **form.cleaned_data)
    except CrowdError as exc:
        messages.error(request, str(exc))
        return redirect("wug:word", name=word.name)
    messages.success(
        request, "The use-pair study is a draft with round 1; open it here to invite participants."
    )
    return redirect("studies:detail", crowd.study_id)


@require_POST
@researcher_required
def crowd_round(request, name: str, slug: str):
    """Add the next round of pairs (from the current clustering) to the study."""
    word = get_object_or_404(Word, name=name)
    crowd = get_object_or_404(CrowdStudy, study__slug=slug, words=word)
    try:
        pair_round = crowd_round_add(crowd_study=crowd)
    except CrowdError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Round {pair_round.number} is added to {crowd.study.title}.")
    return redirect("wug:word", name=word.name)
