from django.urls import path

from . import views

app_name = "wug"
urlpatterns = [
    path("", views.word_list, name="list"),
    path("<str:name>/", views.word_detail, name="word"),
    path("<str:name>/graph.json", views.word_graph, name="graph"),
    path("<str:name>/annotate/", views.word_annotate, name="annotate"),
]
