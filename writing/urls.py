from django.urls import path

from . import researcher_views, review_views, views

app_name = "writing"
urlpatterns = [
    path("", researcher_views.home, name="home"),
    path("pool/", researcher_views.pool, name="pool"),
    path("pool/<int:pair_pk>/flag/", researcher_views.pair_flag, name="pair_flag"),
    path("sentences/", researcher_views.sentence_list, name="sentences"),
    path("sentences/<int:sentence_pk>/", review_views.sentence_detail, name="sentence"),
    *[
        path(f"sentences/<int:sentence_pk>/{action}/", getattr(review_views, name), name=name)
        for action, name in (
            ("review", "sentence_review"),
            ("cleanup", "sentence_cleanup"),
            ("cleanup/accept", "sentence_cleanup_accept"),
            ("cleanup/reject", "sentence_cleanup_reject"),
            ("precontexts/generate", "precontext_generate"),
            ("precontexts/write", "precontext_write"),
            ("precontexts/accept", "precontext_accept"),
        )
    ],
    path("endings/", researcher_views.ending_list, name="endings"),
    path("endings/<int:ending_pk>/", review_views.ending_detail, name="ending"),
    *[
        path(f"endings/<int:ending_pk>/{action}/", getattr(review_views, name), name=name)
        for action, name in (
            ("review", "ending_review"),
            ("cleanup", "ending_cleanup"),
            ("cleanup/accept", "ending_cleanup_accept"),
            ("cleanup/reject", "ending_cleanup_reject"),
        )
    ],
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
