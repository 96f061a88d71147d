"""Documented filters for model runs and predictions."""

from __future__ import annotations

import django_filters as filters

from annotations.api.filters import IdFilter
from predictions.models import ModelRun, Prediction


class ModelRunFilter(filters.FilterSet):
    status = filters.ChoiceFilter(choices=ModelRun.Status.choices, help_text="Run status.")
    backend = filters.CharFilter(help_text="Backend registry name, e.g. import.")
    dataset = filters.CharFilter(field_name="split__dataset__name", help_text="Dataset name.")
    split = filters.CharFilter(field_name="split__name", help_text="Split name, e.g. dev.")

    class Meta:
        model = ModelRun
        fields = ["status", "backend", "dataset", "split"]


class PredictionFilter(filters.FilterSet):
    run = IdFilter(field_name="run_id", help_text="Model run id.")
    sample = IdFilter(field_name="sample_id", help_text="Sample (database) id.")

    class Meta:
        model = Prediction
        fields = ["run", "sample"]
