"""Base class for streamed file exports: parse the query, authorize, stream a generator.

Subclasses set ``media_type`` and implement :meth:`chunks` (a generator of text or bytes
from an exporter module) and :meth:`filename`. The response is a
:class:`~django.http.StreamingHttpResponse`, so memory stays flat however large the export.
"""

from __future__ import annotations

from collections.abc import Iterator

from django.http import StreamingHttpResponse
from rest_framework import serializers
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.generics import GenericAPIView
from rest_framework.renderers import JSONRenderer

from ambisite.api import ApiMixin
from ambisite.http import attachment
from annotations.scope import ScopeError, refuse_unknown


class SplitQuery(serializers.Serializer):
    """The split exports' parameters, for the schema (read by ``annotations.scope``)."""

    dataset = serializers.CharField(default="ambistory", help_text="Dataset name.")
    split = serializers.CharField(help_text="Split name, e.g. dev.")
    study = serializers.CharField(
        required=False, help_text="Study slug (or id): only its own participants' ratings."
    )
    include_excluded = serializers.BooleanField(
        default=False, help_text="Also count the ratings of excluded raters."
    )


class StreamingExportView(ApiMixin, GenericAPIView):
    media_type = "application/octet-stream"
    extension = "bin"
    query_serializer: type[serializers.Serializer] | None = None
    pagination_class = None

    def get_renderers(self):
        return [JSONRenderer()]  # for error bodies; the file itself is streamed as is

    def perform_content_negotiation(self, request, force=False):
        # A client asking for the file's own type (Accept: application/jsonl) gets the file,
        # and JSON errors, rather than a 406.
        return super().perform_content_negotiation(request, force=True)

    def get(self, request, *args, **kwargs):
        query = self.parse_query(request)
        chunks = self.chunks(query, **kwargs)
        response = StreamingHttpResponse(chunks, content_type=self.content_type())
        response["Content-Disposition"] = attachment(self.filename(query, **kwargs))
        return response

    def parse_query(self, request) -> dict:
        """The query, read by :meth:`read_query`: an unknown parameter or a bad value is a
        JSON 400 keyed by the parameter's name; a split or study that does not exist, 404."""
        try:
            return self.read_query(request.query_params)
        except ScopeError as error:
            if error.missing:
                raise NotFound(str(error)) from error
            raise ValidationError({error.param: [str(error)]}) from error

    def read_query(self, params) -> dict:
        """The serializer's fields and nothing else: an unknown parameter is refused."""
        fields = self.query_serializer().fields if self.query_serializer else {}
        refuse_unknown(params, fields)
        if self.query_serializer is None:
            return {}
        parsed = self.query_serializer(data=params)
        parsed.is_valid(raise_exception=True)
        return parsed.validated_data

    def content_type(self) -> str:
        if self.media_type.startswith(("text/", "application/json")):
            return f"{self.media_type}; charset=utf-8"
        return self.media_type

    def chunks(self, query: dict, **kwargs) -> Iterator:
        raise NotImplementedError

    def filename(self, query: dict, **kwargs) -> str:
        raise NotImplementedError
