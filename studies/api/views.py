"""Studies: read-only, plus open/pause/close as actions that call the study services."""

from __future__ import annotations

from django.db.models import Count
from drf_spectacular.utils import extend_schema
from rest_framework.decorators import action
from rest_framework.response import Response

from ambisite.api import ReadOnlyViewSet
from studies.models import Study

from .filters import StudyFilter
from .serializers import StudySerializer


class StudyViewSet(ReadOnlyViewSet):
    """Studies with their settings and counts; state changes are POST actions."""

    serializer_class = StudySerializer
    filterset_class = StudyFilter
    lookup_field = "slug"

    def get_queryset(self):
        return Study.objects.annotate(
            n_samples=Count("samples", distinct=True),
            n_participants=Count("participants", distinct=True),
        ).order_by("-created_at", "id")

    def _transition(self, request, service: str) -> Response:
        from studies import services  # imported at call time: the app owns its state changes

        study = self.get_object()
        try:
            getattr(services, service)(study=study)
        except services.StudyError as error:
            return Response({"detail": str(error)}, status=409)
        return Response(self.get_serializer(self.get_object()).data)

    @extend_schema(request=None, responses=StudySerializer)
    @action(detail=True, methods=["post"])
    def open(self, request, slug=None):
        """Open the study to participants (from draft or paused)."""
        return self._transition(request, "study_open")

    @extend_schema(request=None, responses=StudySerializer)
    @action(detail=True, methods=["post"])
    def pause(self, request, slug=None):
        """Stop handing out new batches; participants in progress may finish."""
        return self._transition(request, "study_pause")

    @extend_schema(request=None, responses=StudySerializer)
    @action(detail=True, methods=["post"])
    def close(self, request, slug=None):
        """Close the study for good."""
        return self._transition(request, "study_close")
