"""Model runs (list, create, cancel, retry, upload) and predictions, for researchers only."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status
from rest_framework.decorators import action
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response

from ambisite.api import ReadOnlyViewSet
from ambisite.request_body import accepts_upload
from annotations.api.parsers import SafeJSONParser
from predictions.backends import ParamError
from predictions.errors import RunStateError
from predictions.evaluation import ScoringError
from predictions.io.importers import (
    TooLarge,
    request_too_large,
    run_upload,
    upload_refused,
)
from predictions.models import ModelRun, Prediction
from predictions.runs.services import run_cancel, run_create, run_retry

from . import filters, serializers


class ModelRunViewSet(mixins.CreateModelMixin, ReadOnlyViewSet):
    """Model runs with their status, progress and official scores."""

    serializer_class = serializers.ModelRunSerializer
    filterset_class = filters.ModelRunFilter
    parser_classes = [SafeJSONParser]  # ``params`` is a JSON object: forms cannot carry it

    def get_queryset(self):
        return ModelRun.objects.select_related("split__dataset", "created_by").order_by(
            "-created_at", "-id"
        )

    @extend_schema(
        request=serializers.RunCreateSerializer, responses={201: serializers.ModelRunSerializer}
    )
    def create(self, request, *args, **kwargs):
        """Queue a run of a backend over a split; a worker computes the predictions."""
        parsed = serializers.RunCreateSerializer(data=request.data)
        parsed.is_valid(raise_exception=True)
        try:
            run = run_create(**parsed.validated_data, created_by=request.user)
        except ParamError as error:  # names the field: {"params": ["params.base_url: ..."]}
            return Response({"params": [str(error)]}, status=status.HTTP_400_BAD_REQUEST)
        except ValueError as error:  # PredictionsError, or a value a backend refuses
            return Response({"detail": str(error)}, status=status.HTTP_400_BAD_REQUEST)
        return Response(self.get_serializer(run).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses=serializers.ModelRunSerializer)
    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        """Cancel a queued or running run (409 for any other status)."""
        try:
            run = run_cancel(run=self.get_object())
        except RunStateError as error:
            return Response({"detail": str(error)}, status=status.HTTP_409_CONFLICT)
        return Response(self.get_serializer(run).data)

    @extend_schema(request=None, responses=serializers.ModelRunSerializer)
    @action(detail=True, methods=["post"])
    def retry(self, request, pk=None):
        """Re-queue a failed or cancelled run (409 for any other status)."""
        try:
            run = run_retry(run=self.get_object())
        except RunStateError as error:
            return Response({"detail": str(error)}, status=status.HTTP_409_CONFLICT)
        return Response(self.get_serializer(run).data)

    @extend_schema(
        request={"multipart/form-data": serializers.RunUploadSerializer},
        responses={201: serializers.ModelRunSerializer},
    )
    @action(detail=False, methods=["post"], parser_classes=[MultiPartParser, FormParser])
    @accepts_upload
    def upload(self, request):
        """Store a predictions jsonl as a new, scored run; a bad file stores nothing (400), a
        file over ``UPLOAD_MAX_BYTES`` is refused unread (413)."""
        if request_too_large(request):
            return self._too_large()
        parsed = serializers.RunUploadSerializer(data=request.data)
        if upload_refused(request):
            return self._too_large()
        parsed.is_valid(raise_exception=True)
        data = parsed.validated_data
        try:
            run = run_upload(
                split=data["split"], name=data["name"], file=data["file"], created_by=request.user
            )
        except TooLarge as error:
            return self._too_large(str(error))
        except ScoringError as error:
            return Response({"file": [str(error)]}, status=status.HTTP_400_BAD_REQUEST)
        return Response(self.get_serializer(run).data, status=status.HTTP_201_CREATED)

    @staticmethod
    def _too_large(detail: str | None = None) -> Response:
        detail = detail or str(TooLarge(settings.UPLOAD_MAX_BYTES))
        return Response({"file": [detail]}, status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)


class PredictionViewSet(ReadOnlyViewSet):
    """Predictions of every run, one per (run, sample)."""

    serializer_class = serializers.PredictionSerializer
    filterset_class = filters.PredictionFilter

    def get_queryset(self):
        return Prediction.objects.select_related("sample").order_by("run_id", "sample_id")
