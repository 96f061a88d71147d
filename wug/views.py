"""Word Usage Graph pages: thin views over :mod:`wug.analysis`."""

from __future__ import annotations

from django.http import JsonResponse
from django.shortcuts import get_object_or_404, render

from ambisite.access import researcher_required
from wug.analysis import frequency_table, graph_payload, word_summary
from wug.models import Use, Word


@researcher_required
def word_list(request):
    summaries = [word_summary(word) for word in Word.objects.all()]
    return render(request, "wug/word_list.html", {"summaries": summaries})


@researcher_required
def word_detail(request, name: str):
    word = get_object_or_404(Word, name=name)
    summary = word_summary(word)
    uses = Use.objects.filter(word=word).order_by("position")
    context = {"summary": summary, "uses": uses, **frequency_table(summary)}
    return render(request, "wug/word_detail.html", context)


@researcher_required
def word_graph(request, name: str):
    word = get_object_or_404(Word, name=name)
    return JsonResponse(graph_payload(word))
