"""Researcher pages under ``/writing/`` (staff only): the pool, writing studies, review,
precontexts, clean-ups, and the step into a rating study. Views parse, authorize, call one
service, and redirect or render."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from ambisite.access import researcher_required
from ambisite.http import attachment
from ambisite.query import bounded_int
from ambisite.request_body import accepts_upload
from annotations.scope import refuse_unknown
from studies.models import Study

from . import defaults, exporters, importers, review, rules, selectors, services
from .forms import (
    GenerateForm,
    PairForm,
    PoolImportForm,
    RatingStudyForm,
    WritingStudyForm,
)
from .models import Ending, Reviewed, SensePair, Sentence

DECISIONS = dict(Reviewed.Decision.choices)


@researcher_required
def home(request: HttpRequest) -> HttpResponse:
    form = WritingStudyForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        study = _create_study(request, form, Study.Activity.SENTENCES, setups=None)
        if study:
            return redirect("studies:detail", study.pk)
    ctx = {
        "studies": selectors.writing_studies(),
        "form": form,
        "n_pool": SensePair.objects.filter(excluded=False).count(),
        "n_sentences": Sentence.objects.count(),
        "n_pending_sentences": Sentence.objects.filter(decision="pending").count(),
        "n_endings": Ending.objects.count(),
        "n_pending_endings": Ending.objects.filter(decision="pending").count(),
        "n_setups": selectors.written_setups().count(),
    }
    return render(request, "writing/home.html", ctx)


def _create_study(request, form, activity: str, setups) -> Study | None:
    data = form.cleaned_data
    fields = {"time_limit_minutes": data["time_limit_minutes"] or 60, "contact": data["contact"]}
    if data.get("per_participant"):
        fields["samples_per_participant"] = data["per_participant"]
    return _study_from_form(
        request,
        form,
        services.writing_study_create,
        "Writing study created (a draft): open it on its study page.",
        activity=activity,
        title=data["title"],
        slug=data["slug"],
        setups=setups,
        **fields,
    )


def _study_from_form(
    request: HttpRequest, form, create: Callable[..., Study], done: str, /, **fields: Any
) -> Study | None:
    """Create a study from a valid form (writing's side of study creation: the page's
    checks, then one service); a short name in use or a refusal goes back on the form."""
    if Study.objects.filter(slug=fields["slug"]).exists():
        form.add_error("slug", "A study with this short name exists.")
        return None
    try:
        study = create(by=request.user, **fields)
    except services.WritingError as exc:
        form.add_error(None, exc.reason)
        return None
    messages.success(request, done)
    return study


def _pool_page(request: HttpRequest, add=None, upload=None) -> HttpResponse:
    # two forms on one page: their own id prefixes, so each label ticks its own box
    ctx = {
        "pairs": selectors.pool(),
        "add": add or PairForm(auto_id="add_%s"),
        "upload": upload or PoolImportForm(auto_id="import_%s"),
        "generate": GenerateForm(auto_id="examples_%s"),
    }
    return render(request, "writing/pool.html", ctx)


pool = researcher_required(require_GET(_pool_page))  # the page with empty forms


@require_POST
@researcher_required
def pool_add(request: HttpRequest) -> HttpResponse:
    add = PairForm(request.POST, auto_id="add_%s")
    if add.is_valid():
        d = add.cleaned_data
        try:
            _, created = services.pair_add(
                form=d["word"],
                gloss_a=d["meaning_1"],
                example_a=d["example_1"],
                pos_a=d["pos_1"],
                gloss_b=d["meaning_2"],
                example_b=d["example_2"],
                pos_b=d["pos_2"],
                flag_pos=d["flag_pos"],
            )
        except services.WritingError as exc:
            add.add_error(None, exc.reason)
        else:
            messages.success(request, "Added to the pool." if created else "Already in the pool.")
            return redirect("writing:pool")
    return _pool_page(request, add=add)


@accepts_upload
@require_POST
@researcher_required
def pool_import(request: HttpRequest) -> HttpResponse:
    upload = PoolImportForm(request.POST, request.FILES, auto_id="import_%s")
    if upload.is_valid():
        try:
            rows = importers.parse_pool(upload.cleaned_data["file"].read())
        except importers.PoolFormatError as exc:
            upload.add_error("file", f"Nothing was imported: {exc}")
        else:
            new, old = services.pool_import(rows=rows, flag_pos=upload.cleaned_data["flag_pos"])
            messages.success(request, f"{new} pairs added, {old} already in the pool.")
            return redirect("writing:pool")
    return _pool_page(request, upload=upload)


@require_POST
@researcher_required
def pair_flag(request: HttpRequest, pair_pk: int) -> HttpResponse:
    """Flag a pool entry out (``excluded=1``, the default) or put it back (``excluded=0``):
    the button says which, so a double click or a stale page does not undo it."""
    pair = get_object_or_404(SensePair, pk=pair_pk)
    services.pair_flag(
        pair=pair,
        excluded=request.POST.get("excluded", "1") != "0",
        reason=request.POST.get("reason", "Flagged out"),
    )
    return redirect("writing:pool")


def _decision_filter(request: HttpRequest) -> str:
    """The review lists' ``?decision=`` filter: ``pending`` when absent, ``""`` (every
    decision) when it names none."""
    decision = request.GET.get("decision", "pending")
    return decision if decision in DECISIONS else ""


def _review_list(key: str, rows: Callable[[str], Any]) -> Callable[[HttpRequest], HttpResponse]:
    """A review list page (sentences, endings) with its ``?decision=`` filter."""

    @researcher_required
    def view(request: HttpRequest) -> HttpResponse:
        decision = _decision_filter(request)
        ctx = {key: rows(decision), "decision": decision, "decisions": DECISIONS}
        return render(request, f"writing/{key[:-1]}_list.html", ctx)

    return view


sentence_list = _review_list("sentences", selectors.sentences_for_review)
ending_list = _review_list("endings", selectors.endings_for_review)


def _setups_page(request: HttpRequest, ending_form=None, rating_form=None) -> HttpResponse:
    ctx = {
        "written": selectors.written_setups(),
        "ready": set(review.ready_setups().values_list("pk", flat=True)),
        "ending_form": ending_form or WritingStudyForm(prefix="e"),
        "rating_form": rating_form or RatingStudyForm(prefix="r"),
    }
    return render(request, "writing/setups.html", ctx)


def _chosen(request: HttpRequest) -> list[int]:
    return [bounded_int(v, 0) for v in request.POST.getlist("setup")]


setups = researcher_required(require_GET(_setups_page))  # the page with empty forms


def _setups_action(
    form_class: type[forms.Form],
    prefix: str,
    slot: str,
    create: Callable[[HttpRequest, Any, list[int]], Study | None],
) -> Callable[[HttpRequest], HttpResponse]:
    """The POST view of one study form of the setups page: the study's page when it is
    created, else the setups page with this form's errors."""

    @require_POST
    @researcher_required
    def view(request: HttpRequest) -> HttpResponse:
        form = form_class(request.POST, prefix=prefix)
        study = create(request, form, _chosen(request)) if form.is_valid() else None
        if study:
            return redirect("studies:detail", study.pk)
        return _setups_page(request, **{slot: form})

    return view


def _ending_study(request: HttpRequest, form, chosen: list[int]) -> Study | None:
    written = list(selectors.written_setups().filter(pk__in=chosen))
    return _create_study(request, form, Study.Activity.ENDINGS, setups=written)


def _rating_study(request, form, chosen: list[int]) -> Study | None:
    data = dict(form.cleaned_data)
    data["ratings_per_sample"] = data["ratings_per_sample"] or 5
    data["dataset"] = data["dataset"] or "ambistory-written"
    return _study_from_form(
        request,
        form,
        review.rating_study_create,
        "Rating study created (a draft) with the written stories.",
        written=list(review.ready_setups().filter(pk__in=chosen)),
        **data,
    )


ending_study_create = _setups_action(WritingStudyForm, "e", "ending_form", _ending_study)
rating_study_create = _setups_action(RatingStudyForm, "r", "rating_form", _rating_study)


@researcher_required
def export(request: HttpRequest) -> StreamingHttpResponse:
    """Every sentence, precontext, ending and review decision with its provenance (JSON)."""
    refuse_unknown(request.GET, ())  # it takes none: a filter would be silently ignored
    response = StreamingHttpResponse(exporters.iter_writing_json(), content_type="application/json")
    response["Content-Disposition"] = attachment("writing.json")
    return response


@researcher_required
@require_http_methods(["GET", "POST"])
def preview(request: HttpRequest, study_pk: int) -> HttpResponse:
    """The writing page of a writing study as its writers see it (Figure 2 or 3), with a
    word from the pool or the study's first story. Next checks the text with the same rules
    and stores nothing."""
    study = get_object_or_404(Study.objects.exclude(activity=Study.Activity.RATING), pk=study_pk)
    text = request.POST.get("text", "").strip()
    if study.activity == Study.Activity.SENTENCES:
        return _preview_sentence(request, study, text)
    slot = study.ending_slots.order_by("id").first()
    if slot is None:
        messages.error(request, "This ending study has no stories.")
        return redirect("studies:detail", study.pk)
    (row,) = selectors.ending_rows(None, [slot])
    error = rules.ending_problem(text, row.homonym) if request.method == "POST" else ""
    row.slot.draft = text
    ctx = {
        "study": study,
        "row": row,
        "done": 0,
        "total": study.samples_per_participant,
        "ui": defaults.ENDING_UI,
        "error": error or "",
        "preview": True,
        "saved": request.method == "POST" and not error,
    }
    return render(request, "writing/write_ending.html", ctx)


def _preview_sentence(request, study: Study, text: str) -> HttpResponse:
    pairs = SensePair.objects.filter(excluded=False).select_related("homonym", "sense_a", "sense_b")
    pair = pairs.filter(
        pk=bounded_int(request.POST.get("draw") or request.GET.get("pair"), 0)
    ).first()
    if request.POST.get("action") == "skip" or pair is None:
        pair = pairs.order_by("?").first()
        text = ""
    if pair is None:
        messages.error(request, "The pool is empty: add pairs first.")
        return redirect("writing:pool")
    error = ""
    if request.method == "POST" and request.POST.get("action") != "skip":
        error = rules.sentence_problem(text, pair.homonym.form) or ""
    ctx = {
        "study": study,
        "pair": pair,
        "draw": SimpleNamespace(pk=pair.pk, draft=text),
        "done": 0,
        "total": study.samples_per_participant,
        "ui": defaults.SENTENCE_UI,
        "error": error,
        "preview": True,
        "saved": request.method == "POST" and bool(text) and not error,
    }
    return render(request, "writing/write_sentence.html", ctx)
