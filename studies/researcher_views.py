"""Researcher pages under ``/studies/`` (staff only): create, edit, run and export studies."""

from __future__ import annotations

from django.contrib import messages
from django.core.paginator import Paginator
from django.db import transaction
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_POST

from ambisite.access import researcher_required
from ambisite.http import attachment
from ambisite.query import id_param
from annotations.models import Sample
from annotations.scope import ScopeError, flag_param, refuse_unknown

from . import list_views, monitoring, participant_views, researcher_reads, services
from .adaptive import TRADEOFF, rule_text
from .forms import CheckQuestionFormSet, StudyForm
from .models import Study
from .shown_texts import iter_study_ambistory_json

# Closing is not here: it asks for confirmation first (``study_close``).
ACTIONS = {
    "open": (services.study_open, "opened"),
    "pause": (services.study_pause, "paused"),
}


@researcher_required
def study_list(request: HttpRequest) -> HttpResponse:
    return render(
        request, "studies/study_list.html", {"studies": researcher_reads.studies_with_counts()}
    )


@researcher_required
def study_new(request: HttpRequest) -> HttpResponse:
    form = StudyForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        samples = form.samples()  # a new study's form requires a split: never None here
        study = services.study_create(
            samples=[] if samples is None else samples, by=request.user, **form.settings()
        )
        messages.success(request, "Study created with the paper's qualification questions.")
        return redirect("studies:detail", study.pk)
    ctx = {"form": form, "formset": None, "outlook": monitoring.form_outlook(form, None)}
    return render(request, "studies/study_form.html", ctx)


@researcher_required
def study_edit(request: HttpRequest, pk: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=pk)
    form = StudyForm(request.POST or None, instance=study)
    formset = CheckQuestionFormSet(request.POST or None, instance=study, prefix="q")
    if request.method == "POST" and form.is_valid() and formset.is_valid():
        try:
            with transaction.atomic():
                formset.save()
                services.study_update(study=study, samples=form.samples(), **form.settings())
        except services.StudyError as exc:
            messages.error(request, exc.reason)
        else:
            return redirect("studies:detail", study.pk)
    ctx = {"form": form, "formset": formset, "study": study}
    ctx["outlook"] = monitoring.form_outlook(form, study)
    return render(request, "studies/study_form.html", ctx)


@researcher_required
def study_detail(request: HttpRequest, pk: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=pk)
    search = request.GET.get("q", "").strip()[:200]
    short_only = request.GET.get("short") == "1"
    samples = Paginator(monitoring.sample_rows(study, text=search, short=short_only), 50)
    ctx = {
        "study": study,
        "prolific_url": _prolific_url(request, study),
        **participant_views.table_context(request, study),
        "n_study_ratings": researcher_reads.study_ratings(study).count(),
        "failures": researcher_reads.attention_failures(study),
        "n_short": monitoring.short_count(study),
        "places": monitoring.place_counts(study),
        "chips": monitoring.participant_chips(study),
        "search": search,
        "short_only": short_only,
        "query": urlencode({k: v for k, v in (("q", search), ("short", short_only)) if v}),
        "page": samples.get_page(request.GET.get("page")),
        "problem": _problem(study),
        "outlook": monitoring.study_outlook(study),
        "adaptive_rule": rule_text(study.adaptive_rule),
        "adaptive_tradeoff": TRADEOFF,
        "lists": list_views.lists_context(study),
    }
    return render(request, "studies/study_detail.html", ctx)


def _problem(study: Study) -> str | None:
    from .assignment import batch_problem

    return batch_problem(study) if study.status == Study.Status.DRAFT else None


def _prolific_url(request: HttpRequest, study: Study) -> str:
    base = request.build_absolute_uri(reverse("participate:arrive", args=[study.slug]))
    return (
        f"{base}?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}&STUDY_ID={{{{%STUDY_ID%}}}}"
        f"&SESSION_ID={{{{%SESSION_ID%}}}}"
    )


@researcher_required
@require_POST
def study_action(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    study = get_object_or_404(Study, pk=pk)
    if action not in ACTIONS:
        return HttpResponse("Unknown action", status=400)
    run, done = ACTIONS[action]
    try:
        run(study=study)
    except services.StudyError as exc:
        messages.error(request, f"Cannot {action} the study: {exc.reason}")
    else:
        messages.success(request, f"Study {done}.")
    return redirect("studies:detail", study.pk)


@researcher_required
def study_close(request: HttpRequest, pk: int) -> HttpResponse:
    """A confirmation page saying what closing does; its POST (``confirm=close``) closes the
    study. Any other request shows the page."""
    study = get_object_or_404(Study, pk=pk)
    if request.method == "POST" and request.POST.get("confirm") == "close":
        try:
            services.study_close(study=study)
        except services.StudyError as exc:
            messages.error(request, f"Cannot close the study: {exc.reason}")
        else:
            messages.success(
                request,
                "Study closed. Nobody new can start; participants who had started can finish "
                "and get the completion code.",
            )
        return redirect("studies:detail", study.pk)
    ctx = {"study": study, "n_active": researcher_reads.active_count(study)}
    return render(request, "studies/study_close.html", ctx)


@researcher_required
def study_feedback(request: HttpRequest, pk: int) -> HttpResponse:
    """Participant comments and nonsensical flags of the study (``?sample=<id>``: one item)."""
    study = get_object_or_404(Study, pk=pk)
    sample = None
    sample_id = id_param(request.GET, "sample")
    if sample_id is not None:
        sample = get_object_or_404(Sample.objects.filter(studies=study), pk=sample_id)
    ctx = {
        "study": study,
        "sample": sample,
        "page": Paginator(researcher_reads.study_feedback(study, sample), 100).get_page(
            request.GET.get("page")
        ),
        "checks": researcher_reads.check_feedback(study)[:200] if sample is None else [],
    }
    return render(request, "studies/study_feedback.html", ctx)


@researcher_required
@researcher_required
def study_export(request: HttpRequest, pk: int) -> StreamingHttpResponse:
    """The study's samples with the texts it shows and the study's own valid ratings of
    them, in AmbiStory JSON (the import format). ``?ratings=all`` adds every other rating of
    those texts (imports, other studies); ``?include_excluded=1`` keeps excluded raters'."""
    refuse_unknown(request.GET, ("ratings", "include_excluded"))
    include = flag_param(request.GET, "include_excluded")  # true/1/yes, as every export
    if request.GET.get("ratings", "") not in ("", "all"):
        raise ScopeError("ratings", "give ratings=all (every rating) or leave it out")
    every = request.GET.get("ratings") == "all"
    study = get_object_or_404(Study, pk=pk)
    rows = iter_study_ambistory_json(study, include_excluded=include, every=every)
    response = StreamingHttpResponse(rows, content_type="application/json")
    suffix = "-all-ratings" if every else ""
    response["Content-Disposition"] = attachment(f"{study.slug}{suffix}.json")
    return response
