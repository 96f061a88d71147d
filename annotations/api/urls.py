from django.urls import path
from rest_framework.routers import SimpleRouter

from . import exports, views

router = SimpleRouter()
router.register("datasets", views.DatasetViewSet, basename="dataset")
router.register("splits", views.SplitViewSet, basename="split")
router.register("setups", views.SetupViewSet, basename="setup")
router.register("samples", views.SampleViewSet, basename="sample")
router.register("ratings", views.RatingViewSet, basename="rating")

urlpatterns = [
    *router.urls,
    path(
        "exports/reference.jsonl",
        exports.ReferenceExportView.as_view(),
        name="export-reference",
    ),
    path(
        "exports/ambistory.json",
        exports.AmbiStoryExportView.as_view(),
        name="export-ambistory",
    ),
    path("exports/ratings.csv", exports.RatingsCsvExportView.as_view(), name="export-ratings-csv"),
    path(
        "exports/ratings.jsonl",
        exports.RatingsJsonlExportView.as_view(),
        name="export-ratings-jsonl",
    ),
]
