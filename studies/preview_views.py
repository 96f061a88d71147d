"""Staff preview of the participant flow (``/studies/<pk>/preview/``): the same pages a
participant sees, for a draft or open study, built from reads only. Nothing is stored: no
participant, rater, rating, slot or attention answer, so the study's counts do not move."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from ambisite.access import researcher_required

from . import bot_checks, defaults, selectors, study_texts
from .forms import QualificationForm, RatingForm
from .models import Study
from .qualification import grade, preview_bots, preview_questions


def _study(pk: int) -> Study:
    return get_object_or_404(Study, pk=pk)


def _ctx(study: Study, **extra) -> dict:
    return {"study": study, "preview": True, **extra}


@researcher_required
def welcome(request: HttpRequest, pk: int) -> HttpResponse:
    study = _study(pk)
    ctx = _ctx(study, **study_texts.welcome_context(study))
    return render(request, "studies/welcome.html", ctx)


@researcher_required
def guidelines(request: HttpRequest, pk: int) -> HttpResponse:
    return render(request, "studies/guidelines.html", _ctx(_study(pk)))


@researcher_required
@require_http_methods(["GET", "POST"])
def qualification(request: HttpRequest, pk: int) -> HttpResponse:
    """The qualification test; a POST grades the answers and says the outcome, storing
    nothing."""
    study = _study(pk)
    questions = preview_questions(study, request.user.pk)
    bots = preview_bots(study, request.user.pk)
    kind = study.task_kind
    form = QualificationForm(request.POST or None, questions=questions, kind=kind, bots=bots)
    if request.method == "POST" and form.is_valid():
        if grade(questions, form.answers(), kind) and bot_checks.grade(bots, form.bot_answers()):
            if study.activity_def.preview:  # the activity's own preview (writing's Figure 2, 3)
                return redirect(study.activity_def.preview_url(study.pk))
            return redirect("studies:preview_rate", study.pk, 0)
        code = study.screenout_code
        ctx = _ctx(study, code=code, url=study.completion_url(code))
        return render(request, "studies/screened_out.html", ctx)
    ctx = _ctx(study, form=form, **defaults.page_context(study.task_kind))
    return render(request, "studies/qualification.html", ctx)


@researcher_required
@require_http_methods(["GET", "POST"])
def rate(request: HttpRequest, pk: int, pos: int) -> HttpResponse:
    """One item of a sample batch; Next checks the form and moves on without saving."""
    study = _study(pk)
    items = selectors.preview_items(study)
    if not 0 <= pos < len(items):
        return redirect("studies:preview_done", study.pk)
    n_choices = len(items[pos].choices)
    form = RatingForm(request.POST or None, kind=study.task_kind, n_choices=n_choices)
    if request.method == "POST" and form.is_valid():
        if pos + 1 < len(items):
            return redirect("studies:preview_rate", study.pk, pos + 1)
        return redirect("studies:preview_done", study.pk)
    ctx = _ctx(
        study,
        item=items[pos],
        answer=form.shown_answer(),
        pos=pos,
        total=len(items),
        finished=pos,
        **defaults.page_context(study.task_kind),
        back_url=reverse("studies:preview_rate", args=[study.pk, pos - 1]) if pos else "",
        guidelines_url=reverse("studies:preview_guidelines", args=[study.pk]),
        seconds_left=study.time_limit_minutes * 60,
    )
    return render(request, "studies/rate.html", ctx)


@researcher_required
def done(request: HttpRequest, pk: int) -> HttpResponse:
    study = _study(pk)
    code = study.completion_code
    return render(
        request, "studies/done.html", _ctx(study, code=code, url=study.completion_url(code))
    )
