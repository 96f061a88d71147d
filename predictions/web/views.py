"""Model run pages: list with scores, detail with live progress, start, cancel, retry."""

from __future__ import annotations

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from ambisite.access import researcher_required
from annotations.reference import split_label_changes
from predictions.errors import FitOnScoredSamples, RunStateError
from predictions.models import ModelRun, TrainedModel
from predictions.runs.claims import run_is_stopping
from predictions.runs.postprocess import run_derive
from predictions.runs.services import run_cancel, run_create, run_retry, trained_model_create
from predictions.web.forms import DeriveForm, RunForm, TrainForm


def progress_of(run: ModelRun) -> dict:
    """The run's progress; ``finished`` only once a cancelled run's worker has stopped too
    (``stopping`` until then), so that the page shows the final count."""
    stopping = run_is_stopping(run)
    return {
        "id": run.pk,
        "status": run.status,
        "stopping": stopping,
        "done": run.done,
        "total": run.total,
        "percent": round(run.percent, 1),
        "rate": run.rate,
        "eta_seconds": run.eta_seconds,
        "error": run.error,
        "scores": run.scores,
        "finished": run.status not in ModelRun.ACTIVE and not stopping,
    }


def _run_list(request: HttpRequest, *, form: RunForm | None = None, status: int = 200):
    """The list page with its three forms (each with its own prefix: ids never repeat)."""
    page = Paginator(ModelRun.objects.with_split().order_by("-created_at", "-id"), 50)
    context = {
        "page": page.get_page(request.GET.get("page")),
        "form": form or RunForm(),
        "train_form": TrainForm(),
        "derive_form": DeriveForm(),
        "trained": TrainedModel.objects.select_related("split__dataset")[:20],
    }
    return render(request, "predictions/run_list.html", context, status=status)


@researcher_required
@require_GET
def run_list(request: HttpRequest) -> HttpResponse:
    return _run_list(request)


@researcher_required
@require_POST
def run_start(request: HttpRequest) -> HttpResponse:
    form = RunForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        try:
            run = run_create(
                name=data["name"],
                backend=data["backend"],
                params=data["params"],
                split=data["split"],
                fit_split=data["fit_split"],
                created_by=request.user,
            )
        except FitOnScoredSamples as exc:
            form.add_error("fit_split", str(exc))
        except ValueError as exc:  # PredictionsError, or a value a backend refuses
            form.add_error("params", str(exc))
        else:
            return redirect("runs:detail", run.pk)
    return _run_list(request, form=form, status=400)


@researcher_required
@require_GET
def run_detail(request: HttpRequest, pk: int) -> HttpResponse:
    run = get_object_or_404(ModelRun.objects.with_split(), pk=pk)
    changes = split_label_changes([run.split_id])[run.split_id]
    context = {"run": run, "progress": progress_of(run), "label_changes": changes}
    return render(request, "predictions/run_detail.html", context)


@researcher_required
@require_GET
def run_progress(request: HttpRequest, pk: int) -> JsonResponse:
    return JsonResponse(progress_of(get_object_or_404(ModelRun, pk=pk)))


@researcher_required
@require_POST
def run_cancel_view(request: HttpRequest, pk: int) -> HttpResponse:
    run = get_object_or_404(ModelRun, pk=pk)
    try:
        run = run_cancel(run=run)
    except RunStateError:
        messages.info(request, f"Run {run.pk} is {run.status}.")
        return redirect("runs:detail", run.pk)
    if run_is_stopping(run):
        messages.info(request, f"Run {run.pk}: cancel requested; it stops after this batch.")
    else:
        messages.info(request, f"Run {run.pk} is {run.status}.")
    return redirect("runs:detail", run.pk)


@researcher_required
@require_POST
def run_retry_view(request: HttpRequest, pk: int) -> HttpResponse:
    run = get_object_or_404(ModelRun, pk=pk)
    try:
        run = run_retry(run=run)
    except RunStateError as exc:
        messages.error(request, str(exc))
    return redirect("runs:detail", run.pk)


@researcher_required
@require_POST
def train_start(request: HttpRequest) -> HttpResponse:
    form = TrainForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        kind = data["kind"] or TrainedModel.Kind.CROSSENCODER
        try:
            model = trained_model_create(
                name=data["name"],
                split=data["split"],
                kind=kind,
                params=data["params"],
                fit_split=data["fit_split"],
                created_by=request.user,
            )
        except ValueError as exc:
            messages.error(request, str(exc))
        else:
            messages.info(request, f"Training job {model.pk} queued.")
    else:
        messages.error(request, f"Training not started: {form.errors.as_text()}")
    return redirect("runs:list")


@researcher_required
@require_GET
def trained_model_detail(request: HttpRequest, pk: int) -> HttpResponse:
    model = get_object_or_404(TrainedModel.objects.select_related("split__dataset"), pk=pk)
    return render(request, "predictions/trained_model_detail.html", {"model": model})


def _runs(ids: list[int]) -> list[ModelRun]:
    found = ModelRun.objects.in_bulk(ids)
    missing = [pk for pk in ids if pk not in found]
    if missing:
        raise ValueError(f"no run {missing[0]}")
    return [found[pk] for pk in ids]


@researcher_required
@require_POST
def run_derive_view(request: HttpRequest) -> HttpResponse:
    form = DeriveForm(request.POST)
    if not form.is_valid():
        messages.error(request, f"Nothing derived: {form.errors.as_text()}")
        return redirect("runs:list")
    data = form.cleaned_data
    try:
        run = run_derive(
            name=data["name"],
            kind=data["kind"],
            sources=_runs(data["sources"]),
            fit=data["fit"],
            fit_sources=_runs(data["fit_sources"]) or None,
            params=data["params"],
            created_by=request.user,
        )
    except ValueError as exc:  # FitOnScoredSamples is a ValueError too
        messages.error(request, f"Nothing derived: {exc}")
        return redirect("runs:list")
    return redirect("runs:detail", run.pk)
