from django.urls import path

from . import researcher_views, views

app_name = "writing"
urlpatterns = [
    path("", researcher_views.home, name="home"),
    path("pool/", researcher_views.pool, name="pool"),
    path("pool/<int:pair_pk>/flag/", researcher_views.pair_flag, name="pair_flag"),
    path("sentences/", researcher_views.sentence_list, name="sentences"),
    path("sentences/<int:sentence_pk>/", researcher_views.sentence_detail, name="sentence"),
    path("endings/", researcher_views.ending_list, name="endings"),
    path("endings/<int:ending_pk>/", researcher_views.ending_detail, name="ending"),
    path("setups/", researcher_views.setups, name="setups"),
    path("export.json", researcher_views.export, name="export"),
    path("studies/<int:study_pk>/preview/", researcher_views.preview, name="preview"),
]

# Mounted at /s/ under the namespace "write" (see ambisite/urls.py), beside the studies
# app's participant pages: the resume cookie's path covers both.
writer_patterns = (
    [
        path("<slug:slug>/sentences/", views.sentences, name="sentences"),
        path("<slug:slug>/endings/", views.endings, name="endings"),
    ],
    "write",
)
