"""Word Usage Graph pages: thin views over :mod:`wug.analysis`."""

from __future__ import annotations

from django.contrib import messages
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from ambisite.access import researcher_required
from wug.analysis import frequency_table, graph_payload, word_summary
from wug.annotators import model_views
from wug.crowd_reads import crowd_views_of
from wug.forms import CrowdStudyForm, GoldPairForm
from wug.models import Use, Word
from wug.services import model_annotation_create


@researcher_required
def word_list(request):
    summaries = [word_summary(word) for word in Word.objects.all()]
    return render(request, "wug/word_list.html", {"summaries": summaries})


@researcher_required
def word_detail(request, name: str):
    word = get_object_or_404(Word, name=name)
    summary = word_summary(word)
    uses = Use.objects.filter(word=word).order_by("position")
    context = {
        "summary": summary,
        "uses": uses,
        "models": model_views(word),
        "crowd_studies": crowd_views_of(word),
        "crowd_form": CrowdStudyForm(initial={"title": f"Use pairs of {word.name}"}),
        "gold_form": GoldPairForm(),
        **frequency_table(summary),
    }
    return render(request, "wug/word_detail.html", context)


@researcher_required
def word_graph(request, name: str):
    word = get_object_or_404(Word, name=name)
    return JsonResponse(graph_payload(word))


@require_POST
@researcher_required
def word_annotate(request, name: str):
    word = get_object_or_404(Word, name=name)
    try:
        model_annotation_create(word=word)
    except ValueError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, "The model annotator is queued; this page shows it when done.")
    return redirect("wug:word", name=word.name)
