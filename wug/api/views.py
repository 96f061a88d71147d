"""The WUG API: words with their figures, and jsonl exports of uses, judgments, clusters and
scores (all words, or one with ``?word=``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.generics import GenericAPIView, get_object_or_404
from rest_framework.response import Response

from ambisite.api import ApiMixin
from annotations.api.streaming import StreamingExportView
from wug import exports_jsonl
from wug.models import Word


class WordQuery(serializers.Serializer):
    word = serializers.CharField(
        required=False, help_text="One word's name; all words if left out."
    )


SCORES = OpenApiResponse(OpenApiTypes.OBJECT, description="A word's figures (see docs/wug.md).")
SCORES_LIST = OpenApiResponse(
    {"type": "array", "items": {"type": "object"}},
    description="Every word's figures (see docs/wug.md).",
)


class WordListView(ApiMixin, GenericAPIView):
    """Every word with its figures: counts, clusters, loss, change and agreement."""

    pagination_class = None

    @extend_schema(operation_id="wug_words_list", responses={200: SCORES_LIST})
    def get(self, request):
        words = self.filter_queryset(Word.objects.all())  # it takes no parameter: 400
        return Response([exports_jsonl.score_record(w) for w in words])


class WordDetailView(ApiMixin, GenericAPIView):
    """One word's figures."""

    @extend_schema(operation_id="wug_words_retrieve", responses={200: SCORES})
    def get(self, request, name: str):
        words = self.filter_queryset(Word.objects.all())  # it takes no parameter: 400
        return Response(exports_jsonl.score_record(get_object_or_404(words, name=name)))


class WugExportView(StreamingExportView):
    media_type = "application/jsonl"
    extension = "jsonl"
    query_serializer = WordQuery
    what = ""
    generator: Callable[..., Iterator[str]]

    def chunks(self, query, **kwargs):
        words = Word.objects.all()
        if "word" in query:
            words = words.filter(name=query["word"])
            if not words.exists():
                raise NotFound(f"No word named {query['word']!r}.")
        return self.generator(list(words))

    def filename(self, query, **kwargs):
        return f"wug_{self.what}.jsonl"


def _export(what: str, generator, description: str) -> type[WugExportView]:
    @extend_schema(
        operation_id=f"wug_exports_{what}",
        parameters=[WordQuery],
        responses={(200, "application/jsonl"): OpenApiResponse(OpenApiTypes.STR, description)},
    )
    def get(self, request, *args, **kwargs):
        return StreamingExportView.get(self, request, *args, **kwargs)

    return type(
        f"Wug{what.title()}ExportView",
        (WugExportView,),
        {"what": what, "generator": staticmethod(generator), "get": get, "__doc__": description},
    )


UsesExport = _export("uses", exports_jsonl.iter_uses, "One use per line: its word and columns.")
JudgmentsExport = _export(
    "judgments", exports_jsonl.iter_judgments, "One judgment per line: its word and columns."
)
ClustersExport = _export(
    "clusters", exports_jsonl.iter_clusters, "One clustered use per line: word, use, cluster."
)
ScoresExport = _export("scores", exports_jsonl.iter_scores, "One word's figures per line.")
