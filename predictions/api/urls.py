from django.urls import path
from rest_framework.routers import SimpleRouter

from . import exports, views

router = SimpleRouter()
router.register("runs", views.ModelRunViewSet, basename="modelrun")
router.register("predictions", views.PredictionViewSet, basename="prediction")

urlpatterns = [
    *router.urls,
    path(
        "runs/<int:pk>/predictions.jsonl",
        exports.PredictionsExportView.as_view(),
        name="export-run-predictions",
    ),
    path(
        "runs/<int:pk>/codabench.zip",
        exports.CodabenchExportView.as_view(),
        name="export-run-codabench",
    ),
]
