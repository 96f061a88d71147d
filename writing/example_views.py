"""The researcher's pages for example sentences of the pool's senses
(``/writing/pool/<pair>/``): ask an LLM for an example of each sense, accept one (optionally
edited) or reject it, and ask for every pair with a sense that has none. Each action parses,
authorizes, calls one service (``writing.examples``), says how it went and goes back."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from ambisite.access import researcher_required
from ambisite.query import bounded_int

from . import defaults, examples, services
from .forms import GenerateForm, endpoint_choices
from .models import SenseExample, SensePair

QUEUED = "Queued: the page shows the answers when they are in."


def _pairs():
    return SensePair.objects.select_related("homonym", "sense_a", "sense_b")


@researcher_required
@require_GET
def pair_detail(request: HttpRequest, pair_pk: int) -> HttpResponse:
    pair = get_object_or_404(_pairs(), pk=pair_pk)
    rows = pair.examples.select_related("sense", "decided_by")
    endpoints = [name for name, _ in endpoint_choices()]
    ctx = {
        "pair": pair,
        "senses": [(n, s, [e for e in rows if e.sense_id == s.pk]) for n, s in _numbered(pair)],
        "generate": GenerateForm(initial={"endpoint": next(iter(endpoints), "")}),
        "prompt_version": defaults.DEFAULT_EXAMPLE_PROMPT,
    }
    return render(request, "writing/pair_detail.html", ctx)


def _numbered(pair: SensePair):
    return ((1, pair.sense_a), (2, pair.sense_b))


def _run(request: HttpRequest, call, done: str, /, **kwargs) -> None:
    try:
        call(by=request.user, **kwargs)
    except services.WritingError as exc:
        messages.error(request, exc.reason)
    else:
        messages.success(request, done)


def _model(request: HttpRequest) -> dict | None:
    form = GenerateForm(request.POST)
    if form.is_valid():
        return form.cleaned_data
    messages.error(request, "Choose an endpoint and a model.")
    return None


@require_POST
@researcher_required
def examples_generate(request: HttpRequest, pair_pk: int) -> HttpResponse:
    pair = get_object_or_404(SensePair, pk=pair_pk)
    chosen = _model(request)
    if chosen is not None:
        _run(request, examples.examples_request, QUEUED, pair=pair, **chosen)
    return redirect("writing:pair", pair.pk)


@require_POST
@researcher_required
def examples_missing(request: HttpRequest) -> HttpResponse:
    chosen = _model(request)
    if chosen is not None:
        _run(request, examples.examples_request_missing, QUEUED, **chosen)
    return redirect("writing:pool")


def _decide(accept: bool):
    @require_POST
    @researcher_required
    def view(request: HttpRequest, pair_pk: int) -> HttpResponse:
        pk = bounded_int(request.POST.get("example"), 0)
        example = get_object_or_404(SenseExample, pk=pk, pair_id=pair_pk)  # of this pair only
        done = "Taken as the example." if accept else "Rejected."
        edited = request.POST.get("text", "")[:2000] if accept else ""
        _run(
            request,
            examples.example_decide,
            done,
            example=example,
            accept=accept,
            edited_text=edited,
        )
        return redirect("writing:pair", pair_pk)

    return view


example_accept = _decide(True)
example_reject = _decide(False)
