from django.apps import AppConfig


class PredictionsConfig(AppConfig):
    name = "predictions"
    verbose_name = "Model runs"
