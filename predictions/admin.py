from django.contrib import admin

from annotations.admin import DataAdmin

from . import models


@admin.register(models.ModelRun)
class ModelRunAdmin(DataAdmin):
    list_display = ("name", "backend", "split", "status", "done", "total", "created_at")
    list_filter = ("status", "backend")


@admin.register(models.Prediction)
class PredictionAdmin(DataAdmin):
    list_display = ("run", "sample", "score")
    raw_id_fields = ("run", "sample")
    list_select_related = ("run", "sample__split__dataset")


@admin.register(models.TrainedModel)
class TrainedModelAdmin(admin.ModelAdmin):
    list_display = ("__str__", "status", "created_at")
