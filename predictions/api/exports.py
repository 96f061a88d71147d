"""Streamed exports of a model run: its predictions jsonl and a CodaBench submission zip."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema

from annotations.api.streaming import StreamingExportView
from predictions.io.codabench import iter_codabench_zip, iter_run_predictions
from predictions.models import ModelRun


class RunExportView(StreamingExportView):
    def get_run(self, pk: int) -> ModelRun:
        return get_object_or_404(ModelRun, pk=pk)


class PredictionsExportView(RunExportView):
    """A run's predictions in the official format: ``{"id": "0", "prediction": 2.5}``.

    An uploaded run comes back byte for byte as it was uploaded."""

    media_type = "application/jsonl"
    extension = "jsonl"

    @extend_schema(
        operation_id="runs_predictions_export",
        responses={
            (200, "application/jsonl"): OpenApiResponse(
                OpenApiTypes.STR, description="One {id, prediction} object per line."
            )
        },
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def chunks(self, query, **kwargs):
        return iter_run_predictions(self.get_run(kwargs["pk"]))

    def filename(self, query, **kwargs):
        return f"run-{kwargs['pk']}-predictions.jsonl"


class CodabenchExportView(RunExportView):
    """A CodaBench-ready zip for a run: ``predictions.jsonl`` at the archive root."""

    media_type = "application/zip"
    extension = "zip"

    @extend_schema(
        operation_id="runs_codabench_export",
        responses={
            (200, "application/zip"): OpenApiResponse(
                OpenApiTypes.BINARY, description="Zip archive holding predictions.jsonl."
            )
        },
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def chunks(self, query, **kwargs):
        return iter_codabench_zip(self.get_run(kwargs["pk"]))

    def filename(self, query, **kwargs):
        return f"run-{kwargs['pk']}-codabench.zip"
