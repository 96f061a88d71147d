"""Research dashboards: thin views that parse, authorize, call one function and render."""

from __future__ import annotations

from urllib.parse import parse_qsl

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from ambisite.access import researcher_required
from ambisite.finite import json_safe
from ambisite.query import bounded_int, id_param
from annotations.models import Rater, RaterExclusion
from predictions.models import ModelRun
from studies.services import participant_exclude, participant_include

from . import annotators, endings, items, kinds, leaderboard
from .cache import cached, cached_every_kind
from .charts import CHARTS, kind_scale
from .figures import N_BOOT, agreement_for
from .forms import ExclusionForm, SampleFilterForm, sample_filter


def _json(data: dict) -> JsonResponse:
    """Every dashboard JSON endpoint answers through here: JSON has no NaN nor infinity, so
    undefined figures become null (``ambisite.finite.json_safe``); one that got past would
    be an error here rather than a body that browsers' ``JSON.parse`` refuses."""
    return JsonResponse(json_safe(data), json_dumps_params={"allow_nan": False})


def _query_without_page(request) -> str:
    """The request's query string minus ``page``, for pagination links."""
    keep = request.GET.copy()
    keep.pop("page", None)
    return keep.urlencode()


@researcher_required
def agreement(request):
    form = sample_filter(request.GET)
    scale = kind_scale(form.task_kind)
    found = cached(
        "agreement",
        form,
        lambda: {**agreement_for(form), "scope": form.scope()},
        reads_runs=False,
    )
    context = {"form": form, "query": form.query_string(), "scale": scale, **found}
    return render(request, "dashboards/agreement.html", {**context, "tab": "agreement"})


@researcher_required
def agreement_json(request):
    form = sample_filter(request.GET, known=("boot", "seed"))
    n_boot = bounded_int(request.GET.get("boot"), N_BOOT, 10, 5000)
    seed = bounded_int(request.GET.get("seed"), 0, 0, 2**31)
    found = cached(
        "agreement.json",
        form,
        lambda: agreement_for(form, n_boot=n_boot, seed=seed),
        reads_runs=False,
        boot=n_boot,
        seed=seed,
    )
    return _json({**found, "scope": form.rating_scope.describe()})


@researcher_required
def item_explorer(request):
    form = sample_filter(request.GET, known=("run", "sort", "page"))
    run_id = id_param(request.GET, "run")
    error_run = ModelRun.objects.finished().filter(pk=run_id).first() if run_id else None
    sort = request.GET.get("sort", "sd")
    page, rows, runs = items.explorer_page(
        form, sort=sort, page=request.GET.get("page"), error_run=error_run
    )
    context = {
        "form": form,
        "page": page,
        "rows": rows,
        "runs": runs,
        "sort": sort,
        "error_run": error_run,
        "scope": cached("scope", form, form.scope),  # one version read with the rows'
        "all_runs": ModelRun.objects.finished().select_related("split").order_by("id"),
        "query": _query_without_page(request),
    }
    return render(request, "dashboards/items.html", {**context, "tab": "items"})


@researcher_required
def setup_view(request, setup_id: int):
    form = sample_filter(request.GET)
    grid = items.setup_grid(setup_id, scope=form.rating_scope)
    if grid is None:
        raise Http404("No such setup")
    context = {
        "grid": grid,
        "form": form,
        "query": form.query_string(),
        "scope": form.scope(),
        "scale": kind_scale(grid.kind),
    }
    return render(request, "dashboards/setup.html", {**context, "tab": "items"})


def _leaderboard(form: SampleFilterForm, a_id: str, b_id: str) -> dict:
    """The leaderboard's figures: every finished run scored on the scope, and runs ``a_id``
    and ``b_id`` compared when both are among them."""
    data = leaderboard.scope_runs_data(form)
    by_id = {str(d.run.id): d for d in data}
    a, b = by_id.get(a_id), by_id.get(b_id)
    return {
        "rows": leaderboard.leaderboard(data),
        "label_changes": cached("label-changes", form, lambda: leaderboard.changed_labels(data)),
        "paired": leaderboard.compare(a, b) if a and b else None,
        "run_a": a.run if a and b else None,
        "run_b": b.run if a and b else None,
        "scope": cached("scope", form, form.scope),
    }


@researcher_required
def leaderboard_page(request):
    form = sample_filter(request.GET, known=("a", "b"))
    a_id, b_id = request.GET.get("a", ""), request.GET.get("b", "")
    found = cached("leaderboard", form, lambda: _leaderboard(form, a_id, b_id), a=a_id, b=b_id)
    context = {
        **found,
        "form": form,
        "query": form.query_string(),
        "scope_hidden": parse_qsl(form.query_string()),
    }
    return render(request, "dashboards/leaderboard.html", {**context, "tab": "leaderboard"})


@researcher_required
def leaderboard_json(request):
    form = sample_filter(request.GET, known=("boot",))
    n_boot = bounded_int(request.GET.get("boot"), N_BOOT, 10, 5000)

    def compute() -> dict:
        data = leaderboard.scope_runs_data(form)
        return {str(k): v for k, v in leaderboard.intervals(data, n_boot=n_boot).items()}

    found = cached("leaderboard.json", form, compute, boot=n_boot)
    scope = form.rating_scope.describe()
    return _json({"n_boot": n_boot, "runs": found, "scope": scope})


@researcher_required
def task_kinds(request):
    """Relatedness and sense choice: human figures and runs, scored by kind."""
    form = sample_filter(request.GET, samples=False)
    relatedness, sense_choice = cached_every_kind(
        "kinds", form, lambda: kinds.kind_views(form.rating_scope)
    )
    context = {
        "relatedness": relatedness,
        "sense_choice": sense_choice,
        "panel": kinds.PANEL,
        "scope_text": kinds.scope_text(form.rating_scope),
    }
    return render(request, "dashboards/kinds.html", {**context, "tab": "kinds"})


@researcher_required
def ending_effects(request):
    form = sample_filter(request.GET, known=("page",))
    effects, scope = cached(
        "endings",
        form,
        lambda: (endings.ending_effects(form.samples(), ratings=form.ratings()), form.scope()),
        reads_runs=False,
    )
    paginator = Paginator(effects, 50)  # type: ignore[arg-type,var-annotated]
    page = paginator.get_page(request.GET.get("page"))
    context = {
        "form": form,
        "page": page,
        "summary": effects.summary(),
        "scope": scope,
        "query": _query_without_page(request),
    }
    return render(request, "dashboards/endings.html", {**context, "tab": "endings"})


@researcher_required
def annotator_quality(request):
    form = sample_filter(request.GET, known=("page",))
    rows, scope = cached(
        "annotators",
        form,
        lambda: (annotators.rater_rows(form.ratings()), form.scope()),
        reads_runs=False,
    )
    paginator = Paginator(rows, 100)  # type: ignore[arg-type,var-annotated]
    page = paginator.get_page(request.GET.get("page"))
    context = {
        "form": form,
        "page": page,
        "n_raters": len(rows),
        "n_flagged": rows.n_flagged,
        "scope": scope,
        "exclusions": annotators.active_exclusions(),
        "thresholds": annotators,
        "query": _query_without_page(request),
        "next": request.get_full_path(),
    }
    return render(request, "dashboards/annotators.html", {**context, "tab": "annotators"})


@require_POST
@researcher_required
def rater_exclusion(request, rater_id: int):
    rater = get_object_or_404(Rater, pk=rater_id)
    form = ExclusionForm(request.POST)
    if not form.is_valid():
        errors = [str(e) for e in form.non_field_errors()] or ["Invalid request."]
        messages.error(request, " ".join(errors))
    elif form.cleaned_data["action"] == "exclude":
        participant_exclude(
            rater=rater,
            source=RaterExclusion.Source.QUALITY,
            reason=form.cleaned_data["reason"].strip(),
            by=request.user,
        )
        messages.success(request, f"{rater} is excluded from aggregates.")
    else:
        participant_include(rater=rater, by=request.user)
        messages.success(request, f"{rater} is included again.")
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(target, {request.get_host()}):
        target = reverse("dashboards:annotators")
    return redirect(target)


@researcher_required
def chart_json(request, slug: str):
    chart = CHARTS.get(slug)
    if chart is None:
        raise Http404("No such chart")
    return _json(chart.payload(request.GET))
