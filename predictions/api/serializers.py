"""Model runs and predictions: output shapes and the parsing of create/upload requests."""

from __future__ import annotations

from rest_framework import serializers

from annotations.models import Split
from predictions.models import ModelRun, Prediction


def split_field(help_text: str) -> serializers.PrimaryKeyRelatedField:
    """A split by its id, with errors that say what to send and where the ids are listed."""
    return serializers.PrimaryKeyRelatedField(
        queryset=Split.objects.all(),
        help_text=help_text,
        error_messages={
            "incorrect_type": "Expected the id of a split (a number; GET /api/v1/splits/ "
            "lists them), received {data_type}.",
            "does_not_exist": 'No split with id "{pk_value}" (GET /api/v1/splits/ lists them).',
        },
    )


class ModelRunSerializer(serializers.ModelSerializer):
    dataset = serializers.CharField(source="split.dataset.name", read_only=True)
    split_name = serializers.CharField(source="split.name", read_only=True)
    created_by = serializers.CharField(
        source="created_by.username", read_only=True, allow_null=True, default=None
    )
    scores = serializers.JSONField(
        read_only=True, allow_null=True, help_text="accuracy, correct, total, spearman."
    )
    stopping = serializers.SerializerMethodField(
        help_text="Cancelled while a worker was on it, which has not stopped yet: its last "
        "batch may still add to done (finished_at is set once it has)."
    )

    class Meta:
        model = ModelRun
        fields = [
            "id", "name", "backend", "params", "dataset", "split", "split_name", "fit_split",
            "status", "stopping", "done", "total", "error", "code_version", "prompt_version",
            "model_version", "fitted_on", "scores", "created_by", "created_at", "started_at",
            "finished_at",
        ]  # fmt: skip
        read_only_fields = fields

    def get_stopping(self, run: ModelRun) -> bool:
        from predictions.runs.claims import run_is_stopping

        return run_is_stopping(run)


class RunCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200, allow_blank=True, default="")
    backend = serializers.CharField(max_length=100, help_text="Registry name of a backend.")
    params = serializers.DictField(
        default=dict,
        help_text="The backend's JSON parameters. LLM runs name an operator-configured endpoint "
        '("endpoint", "model"); base_url, api_key, api_key_env and fit_split are refused.',
    )
    split = split_field("Id of the split to predict (see /splits/).")
    fit_split = serializers.CharField(
        max_length=200,
        allow_blank=True,
        default="",
        help_text="Names of other splits of the same dataset that the backend fits on, in order: "
        '"train" or "train,dev". Never the split it predicts (400). No longer accepted inside '
        "params.",
    )


class RunUploadSerializer(serializers.Serializer):
    split = split_field("Id of the split the file predicts.")
    name = serializers.CharField(max_length=200, help_text="Name of the new run.")
    file = serializers.FileField(help_text='Official jsonl: {"id": "0", "prediction": 2.5}.')


class PredictionSerializer(serializers.ModelSerializer):
    dataset_id = serializers.CharField(source="sample.dataset_id", read_only=True)

    class Meta:
        model = Prediction
        fields = ["id", "run", "sample", "dataset_id", "score", "raw_output", "distribution"]
        read_only_fields = fields
