"""The participants table of a study page (paginated, searchable) and the researcher's
remedies against abuse (``studies.remedies``): end the holds of one client or time window,
reset a burnt PID. Staff only; every remedy is recorded with who and why."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse

from ambisite.access import researcher_required

from . import remedies, researcher_reads
from .errors import StudyError
from .models import Participant, Study
from .remedy_forms import ReasonForm, RemedyForm

PER_PAGE = 100
SEARCH_MAX = 100


def table_context(request: HttpRequest, study: Study) -> dict:
    """The study page's participants table: ``?pq=`` searches PIDs (also reset ones),
    pseudonyms and clients, ``?pstatus=`` filters, ``?ppage=`` pages (every participant is
    reachable: the PIDs are needed for payment)."""
    text = request.GET.get("pq", "")[:SEARCH_MAX].strip()
    status = request.GET.get("pstatus", "")
    rows = researcher_reads.participants_for(study).search(text)  # type: ignore[attr-defined]
    if status in Participant.Status.values:
        rows = rows.filter(status=status)
    else:
        status = ""
    query = urlencode([(k, v) for k, v in (("pq", text), ("pstatus", status)) if v])
    return {
        "participant_page": Paginator(rows, PER_PAGE).get_page(request.GET.get("ppage")),
        "participant_query": query,
        "participant_search": text,
        "participant_status": status,
        "participant_statuses": Participant.Status.choices,
    }


def _back(study: Study) -> str:
    return reverse("studies:detail", args=[study.pk]) + "#participants"


@researcher_required
def remedy(request: HttpRequest, pk: int) -> HttpResponse:
    """End every hold of one client or time window (and optionally exclude them): a GET
    shows the form (``?client=`` fills it) with what it would touch, and the record of the
    study's remedies; the POST acts."""
    study = get_object_or_404(Study, pk=pk)
    if request.method == "POST":
        form = RemedyForm(request.POST)
        if form.is_valid():
            try:
                done = remedies.holds_release(
                    study=study,
                    selection=form.selection(),
                    exclude=form.cleaned_data["exclude"],
                    reason=form.cleaned_data["reason"],
                    by=request.user,
                )
            except StudyError as exc:
                form.add_error(None, exc.reason)
            else:
                messages.success(request, f"{done.get_action_display()}: {done.count} changed.")
                return redirect(_back(study))
    else:
        form = RemedyForm(initial={"client": request.GET.get("client", "")[:64]})
    preview = _preview(study, form)
    ctx = {"study": study, "form": form, "preview": preview, "log": _log(study)}
    return render(request, "studies/remedy.html", ctx, status=400 if form.errors else 200)


def _preview(study: Study, form: RemedyForm) -> remedies.Preview | None:
    """What the form's selection would touch now (None until it names one)."""
    if form.is_bound:
        selection = form.selection() if form.is_valid() else None
    else:
        selection = remedies.Selection(client=form.initial.get("client", ""))
    try:
        return remedies.remedy_preview(study=study, selection=selection) if selection else None
    except StudyError:
        return None


def _log(study: Study):
    return study.remedies.select_related("by")[:100]


@researcher_required
def pid_reset(request: HttpRequest, pk: int, participant_pk: int) -> HttpResponse:
    """Reset a burnt PID: a confirmation page saying what happens; its POST (with a
    reason) does it."""
    participant = get_object_or_404(
        Participant.objects.select_related("study", "rater"), pk=participant_pk, study_id=pk
    )
    form = ReasonForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            remedies.participant_pid_reset(
                participant=participant, reason=form.cleaned_data["reason"], by=request.user
            )
        except StudyError as exc:
            messages.error(request, exc.reason)
        else:
            messages.success(
                request,
                f"PID {participant.prolific_pid} reset: its owner can now start the study.",
            )
        return redirect(_back(participant.study))
    ctx = {"study": participant.study, "participant": participant, "form": form}
    return render(request, "studies/pid_reset.html", ctx, status=400 if form.errors else 200)
