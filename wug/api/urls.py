from django.urls import path

from . import views

urlpatterns = [
    path("wug/words/", views.WordListView.as_view(), name="wug-words"),
    path("wug/words/<str:name>/", views.WordDetailView.as_view(), name="wug-word"),
    path("wug/exports/uses.jsonl", views.UsesExport.as_view(), name="wug-export-uses"),
    path(
        "wug/exports/judgments.jsonl", views.JudgmentsExport.as_view(), name="wug-export-judgments"
    ),
    path("wug/exports/clusters.jsonl", views.ClustersExport.as_view(), name="wug-export-clusters"),
    path("wug/exports/scores.jsonl", views.ScoresExport.as_view(), name="wug-export-scores"),
]
