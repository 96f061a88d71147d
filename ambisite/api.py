"""Shared building blocks of every AmbiSite API view (the plumbing every app's ``api/`` builds
on, so it lives at the bottom): one small base class per concern.

* :class:`ApiSchema` documents the error answers every endpoint can give, so that the
  OpenAPI schema describes all responses (Schemathesis checks it).
* :class:`ApiPagination` is page-number pagination with an optional ``page_size``.
* :class:`StrictFilterBackend` filters as django-filter does and refuses (400 naming it) a
  query parameter the view does not read.
* :class:`ReadOnlyViewSet` is list + retrieve for researchers only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import inline_serializer
from rest_framework import mixins, serializers, viewsets
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import BasePagination, PageNumberPagination
from rest_framework.permissions import BasePermission
from rest_framework.schemas.inspectors import ViewInspector
from rest_framework.settings import api_settings

if TYPE_CHECKING:
    from rest_framework.permissions import _PermissionClass

from ambisite.access import is_researcher
from ambisite.query import unknown_param

ERROR = inline_serializer(
    name="Error",
    fields={"detail": serializers.CharField(help_text="What went wrong.")},
)
VALIDATION_ERROR = inline_serializer(
    name="ValidationError",
    fields={"detail": serializers.CharField(required=False)},
)


class IsResearcher(BasePermission):
    """Active staff users only: annotators, outsiders and anonymous visitors get nothing."""

    message = "Only researchers may use the API."

    def has_permission(self, request, view) -> bool:
        return is_researcher(request.user)


class ApiSchema(AutoSchema):
    """AutoSchema that also documents 400/401/403/404 (and 409/415 for POST)."""

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        # Filters apply to retrieve too (DRF filters before get_object), so any call may 400.
        errors = {"400": VALIDATION_ERROR, "401": ERROR, "403": ERROR, "404": ERROR}
        if self.method == "POST":
            errors["409"] = ERROR
            errors["415"] = ERROR
        for code, serializer in errors.items():
            if code not in responses:
                # Errors are always JSON, even where the success body is jsonl, CSV or zip.
                responses[code] = self._get_response_for_code(
                    serializer, code, ["application/json"]
                )
        return responses


class ApiPagination(PageNumberPagination):
    """Page-number pagination that says what is wrong with ``page`` or ``page_size`` (400
    naming it) instead of answering 404 or silently using the default; an empty value is the
    parameter left out, as for every optional query parameter."""

    page_size_query_param = "page_size"
    max_page_size = 1000

    def get_page_size(self, request) -> int | None:
        chosen = self._number(request, self.page_size_query_param, self.max_page_size)
        return chosen or self.page_size

    def get_page_number(self, request, paginator) -> int:
        return self._number(request, self.page_query_param, None) or 1

    @staticmethod
    def _number(request, name: str, maximum: int | None) -> int | None:
        raw = request.query_params.get(name, "")
        if raw == "":
            return None
        if not raw.isascii() or not raw.isdigit() or len(raw) > 18:
            raise ValidationError({name: ["A whole number from 1 is required."]})
        value = int(raw)
        if value < 1 or (maximum is not None and value > maximum):
            upper = f" to {maximum}" if maximum is not None else ""
            raise ValidationError({name: [f"A whole number from 1{upper} is required."]})
        return value

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            parameter["schema"]["minimum"] = 1
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"]["maximum"] = self.max_page_size
        return parameters


class StrictFilterBackend(DjangoFilterBackend):
    """django-filter's backend, which silently ignores a parameter it has no filter for (so
    ``ratings/?kind=relatedness`` or a misspelt ``studdy=`` answered every row with 200): a
    parameter that is neither one of the view's filters, nor ``page``/``page_size``, nor
    ``format`` is a 400 keyed by its name. It runs for lists and single objects alike (DRF
    filters before ``get_object``), and for a view without filters (it takes none)."""

    def filter_queryset(self, request, queryset, view):
        unknown = unknown_param(request.query_params, self.known_params(queryset, view))
        if unknown is not None:
            name, message = unknown
            raise ValidationError({name: [f"{name}: {message}"]})
        return super().filter_queryset(request, queryset, view)

    def known_params(self, queryset, view) -> set[str]:
        known = {api_settings.URL_FORMAT_OVERRIDE}
        filterset_class = self.get_filterset_class(view, queryset)
        if filterset_class is not None:
            known.update(filterset_class.base_filters)
        paginator = getattr(view, "paginator", None)
        for name in ("page_query_param", "page_size_query_param"):
            if getattr(paginator, name, None):
                known.add(getattr(paginator, name))
        return known


class ApiMixin:
    """Researchers only, documented errors, paginated lists, unknown parameters refused."""

    permission_classes: Sequence[_PermissionClass] = [IsResearcher]
    pagination_class: type[BasePagination] | None = ApiPagination
    # Any: the stubs type GenericAPIView's by its model, which this mixin does not know
    filter_backends: Sequence[Any] = [StrictFilterBackend]
    schema: ViewInspector | None = ApiSchema()


class ReadOnlyViewSet(
    ApiMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    """List and retrieve, nothing else."""


@csrf_exempt  # nothing to protect: it only ever answers 404
def not_found(request, *args, **kwargs) -> JsonResponse:
    """404 for unknown URLs under the API, as JSON like every other API error."""
    return JsonResponse({"detail": "Not found."}, status=404)
