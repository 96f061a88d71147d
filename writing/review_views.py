"""The researcher's review pages of one written text (``/writing/sentences/<pk>/``,
``/writing/endings/<pk>/``) and one URL per action on them: review, ask an LLM for a
precontext or a clean-up, write a precontext, make the setup, decide a clean-up. Each
action parses, authorizes, calls one service, says how it went, and goes back to the
page; a refused form says why instead of being dropped."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib import messages
from django.db.models import Model, QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from ambisite.access import researcher_required
from ambisite.query import bounded_int
from annotations.models import Sense

from . import review, selectors, services, swaps
from .diffs import word_diff
from .forms import (
    EndingSenseForm,
    GenerateForm,
    PrecontextForm,
    ReviewForm,
    SentenceSensesForm,
    endpoint_choices,
)
from .models import Cleanup, Precontext, Reviewed

DECISIONS = dict(Reviewed.Decision.choices)


@dataclass(frozen=True)
class _Text:
    """A kind of written text with a review page: its rows, the service keyword that names
    it, the page's URL name and the URL's id parameter."""

    rows: Callable[[], QuerySet[Any]]
    key: str
    page: str
    param: str

    def get(self, url: dict[str, int]) -> Any:
        return get_object_or_404(self.rows(), pk=url[self.param])


SENTENCE = _Text(selectors.sentences_for_review, "sentence", "writing:sentence", "sentence_pk")
ENDING = _Text(selectors.endings_for_review, "ending", "writing:ending", "ending_pk")
CHOOSE_MODEL = "Choose an endpoint and a model."

# The service's keywords besides the form's fields, read from the request and the text (a
# row it names is looked up within that text, else 404); without one, the text itself.
Extra = Callable[[HttpRequest, Model], dict[str, Any]]


class _NoFields(forms.Form):
    """For the actions whose only input is in the URL or read by their ``Extra``."""


def _call(request: HttpRequest, form: forms.Form, invalid: str, call, done: str, kwargs) -> None:
    """Validate ``form``, call one service with its data, and tell the researcher: the
    form's first error after ``invalid`` (never dropped silently), the service's reason,
    or ``done``."""
    if not form.is_valid():
        first = next((str(e) for field in form.errors.values() for e in field), "")
        messages.error(request, f"{invalid} {first}".strip())
        return
    try:
        call(by=request.user, **form.cleaned_data, **kwargs)
    except services.WritingError as exc:
        messages.error(request, exc.reason)
    else:
        messages.success(request, done or f"{DECISIONS[form.cleaned_data['decision']]}.")


def _action(
    text: _Text,
    form_class: type[forms.Form],
    invalid: str,
    call: Callable[..., object],
    done: str,
    extra: Extra | None = None,
) -> Callable[..., HttpResponse]:
    """The POST view of one action on one kind of text; ``done`` empty: a review, whose
    message names the decision."""

    @require_POST
    @researcher_required
    def view(request: HttpRequest, **url: int) -> HttpResponse:
        item = text.get(url)
        kwargs = extra(request, item) if extra else {text.key: item}
        _call(request, form_class(request.POST), invalid, call, done, kwargs)
        return redirect(text.page, item.pk)

    return view


def _posted_id(request: HttpRequest, name: str) -> int:
    return bounded_int(request.POST.get(name), 0)


def _based_on(request: HttpRequest, sentence: Model) -> dict[str, Any]:
    versions = Precontext.objects.filter(sentence_id=sentence.pk)
    based_on = versions.filter(pk=_posted_id(request, "based_on")).first()
    return {"sentence": sentence, "based_on": based_on}


def _precontext(request: HttpRequest, sentence: Model) -> dict[str, Any]:
    """The precontext to accept, of this sentence only; ``setup_make`` takes no sentence."""
    pk = _posted_id(request, "precontext")
    return {"precontext": get_object_or_404(Precontext, pk=pk, sentence_id=sentence.pk)}


def _cleanup(text: _Text, accept: bool) -> Extra:
    """The clean-up to decide, looked up by its id and this page's text on both pages (a
    stale or forged id of another text's clean-up is a 404, not decided)."""

    def read(request: HttpRequest, item: Model) -> dict[str, Any]:
        pk = _posted_id(request, "cleanup")
        cleanup = get_object_or_404(Cleanup, pk=pk, **{text.key: item})
        return {"cleanup": cleanup, "accept": accept}

    return read


sentence_review = _action(
    SENTENCE, ReviewForm, "Choose accept or reject.", review.sentence_review, ""
)
ending_review = _action(ENDING, ReviewForm, "Choose accept or reject.", review.ending_review, "")
sentence_senses = _action(
    SENTENCE, SentenceSensesForm, "The senses were not changed:", swaps.sentence_senses_swap,
    "The sentence's senses are changed.",
)  # fmt: skip
ending_sense = _action(
    ENDING, EndingSenseForm, "The sense was not changed:", swaps.ending_sense_swap,
    "The ending's sense is changed.",
)  # fmt: skip
QUEUED = "Queued: the page shows the answer when it is in."
precontext_generate = _action(
    SENTENCE, GenerateForm, CHOOSE_MODEL, review.precontext_request, QUEUED
)
sentence_cleanup = _action(SENTENCE, GenerateForm, CHOOSE_MODEL, review.cleanup_request, QUEUED)
ending_cleanup = _action(ENDING, GenerateForm, CHOOSE_MODEL, review.cleanup_request, QUEUED)
precontext_write = _action(
    SENTENCE, PrecontextForm, "The precontext was not saved:", review.precontext_write,
    "Saved as a new version.", _based_on,
)  # fmt: skip
precontext_accept = _action(
    SENTENCE, _NoFields, "", review.setup_make, "The sentence is now a setup.", _precontext
)
sentence_cleanup_accept = _action(
    SENTENCE, _NoFields, "", review.cleanup_decide, "Done.", _cleanup(SENTENCE, True)
)
sentence_cleanup_reject = _action(
    SENTENCE, _NoFields, "", review.cleanup_decide, "Done.", _cleanup(SENTENCE, False)
)
ending_cleanup_accept = _action(
    ENDING, _NoFields, "", review.cleanup_decide, "Done.", _cleanup(ENDING, True)
)
ending_cleanup_reject = _action(
    ENDING, _NoFields, "", review.cleanup_decide, "Done.", _cleanup(ENDING, False)
)


def _with_diffs(cleanups) -> list:
    return [(c, word_diff(c.original, c.suggested) if c.suggested else []) for c in cleanups]


@researcher_required
@require_GET
def sentence_detail(request: HttpRequest, sentence_pk: int) -> HttpResponse:
    sentence = SENTENCE.get({"sentence_pk": sentence_pk})
    endpoints = [name for name, _ in endpoint_choices()]
    ctx = {
        "sentence": sentence,
        "precontexts": sentence.precontexts.all(),
        "cleanups": _with_diffs(sentence.cleanups.all()),
        "decisions_log": sentence.decisions.select_related("by"),
        "review": ReviewForm(initial={"edited_text": sentence.final_text}),
        "generate": GenerateForm(initial={"endpoint": next(iter(endpoints), "")}),
        "written": getattr(sentence, "written", None) if sentence.has_setup else None,
        "senses": Sense.objects.filter(homonym_id=sentence.pair.homonym_id).order_by("id"),
        "swaps": sentence.sense_swaps.select_related(
            "by", "pair_before__sense_a", "pair_before__sense_b"
        ),
        "shown_pair": sentence.draw.pair,
    }
    return render(request, "writing/sentence_detail.html", ctx)


@researcher_required
@require_GET
def ending_detail(request: HttpRequest, ending_pk: int) -> HttpResponse:
    ending = ENDING.get({"ending_pk": ending_pk})
    ctx = {
        "ending": ending,
        "cleanups": _with_diffs(ending.cleanups.all()),
        "decisions_log": ending.decisions.select_related("by"),
        "review": ReviewForm(initial={"edited_text": ending.final_text}),
        "generate": GenerateForm(),
        "swaps": ending.sense_swaps.select_related("by", "sense_before"),
        "other_sense": _other(ending),
    }
    return render(request, "writing/ending_detail.html", ctx)


def _other(ending) -> Sense:
    """The sense of the story's pair the ending is not assigned to."""
    pair = ending.slot.written.sentence.pair
    return pair.sense_b if ending.sense_id == pair.sense_a_id else pair.sense_a
