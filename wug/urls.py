from django.urls import path

from . import crowd_views, views

app_name = "wug"
urlpatterns = [
    path("", views.word_list, name="list"),
    path("<str:name>/", views.word_detail, name="word"),
    path("<str:name>/graph.json", views.word_graph, name="graph"),
    path("<str:name>/annotate/", views.word_annotate, name="annotate"),
    path("<str:name>/crowd/", crowd_views.crowd_start, name="crowd_start"),
    path("<str:name>/crowd/<slug:slug>/round/", crowd_views.crowd_round, name="crowd_round"),
    path("<str:name>/crowd/<slug:slug>/gold/", crowd_views.crowd_gold, name="crowd_gold"),
    path(
        "<str:name>/crowd/<slug:slug>/gold/<int:gold_pk>/remove/",
        crowd_views.crowd_gold_remove,
        name="crowd_gold_remove",
    ),
]
