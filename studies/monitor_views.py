"""The study page's live parts (staff only): the JSON it polls, the adaptive outlook the
study form asks for, and the confirmed include/exclude of one participant."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET

from ambisite.access import researcher_required

from . import monitoring
from .exclusions import is_excluded, participant_exclusion_set
from .forms import ExclusionForm
from .models import Participant, Study
from .services import StudyError


def _ids(raw: str) -> list[int] | None:
    parts = [p for p in raw.split(",") if p]
    if not all(p.isascii() and p.isdigit() and len(p) < 19 for p in parts):
        return None
    return [int(p) for p in parts]


@researcher_required
@require_GET
def study_live(request: HttpRequest, pk: int) -> JsonResponse:
    """``?ids=1,2,3``: the sample rows the page shows (their numbers come back)."""
    study = get_object_or_404(Study, pk=pk)
    ids = _ids(request.GET.get("ids", ""))
    if ids is None:
        return JsonResponse({"error": "ids must be sample ids separated by commas"}, status=400)
    return JsonResponse(monitoring.study_live(study, ids))


@researcher_required
@require_GET
def adaptive_outlook(request: HttpRequest) -> JsonResponse:
    """The study form's adaptive settings in plain words (``monitoring.settings_outlook``)."""
    found, problem = monitoring.outlook_from(request.GET)
    if found is None:
        return JsonResponse({"error": problem}, status=400)
    return JsonResponse({"sentences": found.sentences(), "agreed": found.agreed})


@researcher_required
def participant_exclusion(request: HttpRequest, pk: int, participant_pk: int) -> HttpResponse:
    """A confirmation page saying what excluding (or including) does, with a reason to
    give; its POST makes the change (``exclusions.participant_exclusion_set``)."""
    participant = get_object_or_404(
        Participant.objects.select_related("rater", "study"), pk=participant_pk, study_id=pk
    )
    excluded = is_excluded(participant)
    action = "include" if excluded else "exclude"
    form = ExclusionForm(
        request.POST if request.method == "POST" else None, initial={"confirm": action}
    )
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                counts = participant_exclusion_set(
                    participant=participant,
                    exclude=form.cleaned_data["confirm"] == "exclude",
                    reason=form.cleaned_data["reason"],
                    by=request.user,
                )
            except StudyError as exc:
                form.add_error("reason", exc.reason)
            else:
                state = "included: their ratings count" if counts else "excluded"
                messages.success(request, f"{participant.rater.pseudonym} is now {state}.")
                url = reverse("studies:detail", args=[pk])
                return redirect(f"{url}#participant-{participant.pk}")
        status = 400
    ctx = {
        "study": participant.study,
        "participant": participant,
        "action": action,
        "form": form,
        "n_ratings": participant.rater.ratings.count(),
    }
    return render(request, "studies/participant_exclusion.html", ctx, status=status)
