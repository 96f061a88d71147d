from django.urls import path

from . import paper_views, views

app_name = "dashboards"
urlpatterns = [
    path("", views.agreement, name="agreement"),
    path("agreement.json", views.agreement_json, name="agreement_json"),
    path("items/", views.item_explorer, name="items"),
    path("setups/<int:setup_id>/", views.setup_view, name="setup"),
    path("leaderboard/", views.leaderboard_page, name="leaderboard"),
    path("leaderboard/intervals.json", views.leaderboard_json, name="leaderboard_json"),
    path("endings/", views.ending_effects, name="endings"),
    path("kinds/", views.task_kinds, name="kinds"),
    path("papers/", paper_views.paper_analyses_page, name="papers"),
    path("annotators/", views.annotator_quality, name="annotators"),
    path("annotators/<int:rater_id>/exclusion/", views.rater_exclusion, name="rater_exclusion"),
    path("charts/<slug:slug>.json", views.chart_json, name="chart"),
]
