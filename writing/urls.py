from django.urls import path

from . import example_views, researcher_views, review_views, views

# one URL per action on a text's review page (writing.review_views)
_S, _E = "sentences/<int:sentence_pk>", "endings/<int:ending_pk>"
_REVIEW_ACTIONS = (
    (_S, "review", "sentence_review"),
    (_S, "cleanup", "sentence_cleanup"),
    (_S, "cleanup/accept", "sentence_cleanup_accept"),
    (_S, "cleanup/reject", "sentence_cleanup_reject"),
    (_S, "precontexts/generate", "precontext_generate"),
    (_S, "precontexts/write", "precontext_write"),
    (_S, "precontexts/accept", "precontext_accept"),
    (_S, "senses", "sentence_senses"),
    (_E, "review", "ending_review"),
    (_E, "cleanup", "ending_cleanup"),
    (_E, "cleanup/accept", "ending_cleanup_accept"),
    (_E, "cleanup/reject", "ending_cleanup_reject"),
    (_E, "sense", "ending_sense"),
)

app_name = "writing"
urlpatterns = [
    path("", researcher_views.home, name="home"),
    path("pool/", researcher_views.pool, name="pool"),
    path("pool/add/", researcher_views.pool_add, name="pool_add"),
    path("pool/import/", researcher_views.pool_import, name="pool_import"),
    path("pool/<int:pair_pk>/flag/", researcher_views.pair_flag, name="pair_flag"),
    path("pool/<int:pair_pk>/", example_views.pair_detail, name="pair"),
    path("pool/<int:pair_pk>/examples/", example_views.examples_generate, name="examples_generate"),
    path(
        "pool/<int:pair_pk>/examples/accept/", example_views.example_accept, name="example_accept"
    ),
    path(
        "pool/<int:pair_pk>/examples/reject/", example_views.example_reject, name="example_reject"
    ),
    path("pool/examples/", example_views.examples_missing, name="examples_missing"),
    path("sentences/", researcher_views.sentence_list, name="sentences"),
    path("sentences/<int:sentence_pk>/", review_views.sentence_detail, name="sentence"),
    path("endings/", researcher_views.ending_list, name="endings"),
    path("endings/<int:ending_pk>/", review_views.ending_detail, name="ending"),
    *[
        path(f"{text}/{action}/", getattr(review_views, name), name=name)
        for text, action, name in _REVIEW_ACTIONS
    ],
    path("setups/", researcher_views.setups, name="setups"),
    path("setups/ending-study/", researcher_views.ending_study_create, name="ending_study_create"),
    path("setups/rating-study/", researcher_views.rating_study_create, name="rating_study_create"),
    path("export.json", researcher_views.export, name="export"),
    path("studies/<int:study_pk>/preview/", researcher_views.preview, name="preview"),
]

# Mounted at /s/ under the namespace "write" (see ambisite/urls.py), beside the studies
# app's participant pages: the resume cookie's path covers both.
writer_patterns = (
    [
        path("<slug:slug>/sentences/", views.sentences, name="sentences"),
        path("<slug:slug>/endings/", views.endings, name="endings"),
        path("<slug:slug>/endings/<int:position>/", views.endings, name="ending_at"),
    ],
    "write",
)
