"""The researcher's actions on use-pair crowd studies: thin views over ``wug.crowd``."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_POST

from ambisite.access import researcher_required
from wug.crowd import CrowdError, crowd_round_add, crowd_study_create, words_named
from wug.crowd_gold import GoldSpec, gold_pair_add, gold_pair_remove
from wug.forms import CrowdStudyForm, GoldPairForm
from wug.models import CrowdStudy, GoldPair, Word


def _problems(form) -> str:
    return "; ".join(f"{field}: {' '.join(map(str, errs))}" for field, errs in form.errors.items())


@require_POST
@researcher_required
def crowd_start(request, name: str):
    """Start a use-pair study of the word (a draft with round 1 and its gold pairs); the
    study page opens it."""
    word = get_object_or_404(Word, name=name)
    form = CrowdStudyForm(request.POST)
    if not form.is_valid():
        messages.error(request, f"The study was not started: {_problems(form)}")
        return redirect("wug:word", name=word.name)
    fields = dict(form.cleaned_data)
    others = fields.pop("other_words")
    try:
        words = words_named([word.name, *others])
        crowd = crowd_study_create(words=words, by=request.user, **fields)
    except CrowdError as exc:
        messages.error(request, str(exc))
        return redirect("wug:word", name=word.name)
    messages.success(
        request, "The use-pair study is a draft with round 1; open it here to invite participants."
    )
    return redirect("studies:detail", crowd.study_id)


def _word_study(name: str, slug: str) -> tuple[Word, CrowdStudy]:
    """The word and its use-pair study ``slug`` (404 when either is missing or the study is
    not the word's)."""
    word = get_object_or_404(Word, name=name)
    return word, get_object_or_404(CrowdStudy, study__slug=slug, words=word)


@require_POST
@researcher_required
def crowd_round(request, name: str, slug: str):
    """Add the next round of pairs (from the current clustering) to the study."""
    word, crowd = _word_study(name, slug)
    try:
        pair_round = crowd_round_add(crowd_study=crowd)
    except CrowdError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Round {pair_round.number} is added to {crowd.study.title}.")
    return redirect("wug:word", name=word.name)


@require_POST
@researcher_required
def crowd_gold(request, name: str, slug: str):
    """Add a researcher's gold pair (two use ids and the expected answer) to a draft study."""
    word, crowd = _word_study(name, slug)
    form = GoldPairForm(request.POST)
    if not form.is_valid():
        messages.error(request, f"No gold pair was added: {_problems(form)}")
        return redirect("wug:word", name=word.name)
    data = form.cleaned_data
    spec = GoldSpec(data["use1"], data["use2"], data["expected"], data["tolerance"], word.name)
    try:
        gold = gold_pair_add(crowd_study=crowd, spec=spec)
    except CrowdError as exc:
        messages.error(request, f"No gold pair was added: {exc}")
    else:
        messages.success(
            request,
            f"Gold pair {gold.use1.identifier} ~ {gold.use2.identifier} (answer "
            f"{data['expected']}) is added to {crowd.study.title}.",
        )
    return redirect("wug:word", name=word.name)


@require_POST
@researcher_required
def crowd_gold_remove(request, name: str, slug: str, gold_pk: int):
    """Remove a gold pair (an identity pair too) from a draft study."""
    word, crowd = _word_study(name, slug)
    gold = get_object_or_404(
        GoldPair.objects.select_related("use1", "use2"),
        pk=gold_pk,
        question__study_id=crowd.study_id,
    )
    try:
        gold_pair_remove(crowd_study=crowd, gold=gold)
    except CrowdError as exc:
        messages.error(request, f"No gold pair was removed: {exc}")
    else:
        messages.success(
            request,
            f"Gold pair {gold.use1.identifier} ~ {gold.use2.identifier} is removed from "
            f"{crowd.study.title}.",
        )
    return redirect("wug:word", name=word.name)
