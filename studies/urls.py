from django.urls import path

from . import (
    consent_views,
    hold_views,
    list_views,
    monitor_views,
    participant_views,
    preview_views,
    rating_views,
    researcher_views,
    text_views,
    views,
)

app_name = "studies"
urlpatterns = [
    path("", researcher_views.study_list, name="list"),
    path("new/", researcher_views.study_new, name="create"),
    path("adaptive-outlook.json", monitor_views.adaptive_outlook, name="adaptive_outlook"),
    path("<int:pk>/", researcher_views.study_detail, name="detail"),
    path("<int:pk>/live.json", monitor_views.study_live, name="live"),
    path("<int:pk>/edit/", researcher_views.study_edit, name="edit"),
    path("<int:pk>/export.json", researcher_views.study_export, name="export"),
    path("<int:pk>/close/", researcher_views.study_close, name="close"),
    path("<int:pk>/feedback/", researcher_views.study_feedback, name="feedback"),
    path(
        "<int:pk>/samples/<int:sample_pk>/texts/",
        text_views.sample_texts,
        name="sample_texts",
    ),
    path(
        "<int:pk>/samples/<int:sample_pk>/reference/",
        text_views.reference_texts,
        name="reference_texts",
    ),
    path("<int:pk>/preview/", preview_views.welcome, name="preview"),
    path("<int:pk>/preview/guidelines/", preview_views.guidelines, name="preview_guidelines"),
    path(
        "<int:pk>/preview/qualification/",
        preview_views.qualification,
        name="preview_qualification",
    ),
    path("<int:pk>/preview/rate/<int:pos>/", preview_views.rate, name="preview_rate"),
    path("<int:pk>/preview/done/", preview_views.done, name="preview_done"),
    path("<int:pk>/participants/remedy/", participant_views.remedy, name="remedy"),
    path(
        "<int:pk>/participants/<int:participant_pk>/reset-pid/",
        participant_views.pid_reset,
        name="pid_reset",
    ),
    path("<int:pk>/lists/upload/", list_views.lists_upload, name="lists_upload"),
    path("<int:pk>/lists/make/", list_views.lists_make, name="lists_make"),
    path("<int:pk>/lists.csv", list_views.lists_download, name="lists_download"),
    path("<int:pk>/<str:action>/", researcher_views.study_action, name="action"),
    path(
        "<int:pk>/participants/<int:participant_pk>/toggle/",
        monitor_views.participant_exclusion,
        name="toggle",
    ),
]

# Mounted at /s/ under the namespace "participate" (see ambisite/urls.py).
participant_patterns = (
    [
        path("<slug:slug>/", views.arrive, name="arrive"),
        path("<slug:slug>/consent/", consent_views.consent, name="consent"),
        path("<slug:slug>/welcome/", views.welcome, name="welcome"),
        path("<slug:slug>/guidelines/", views.guidelines, name="guidelines"),
        path("<slug:slug>/qualification/", consent_views.qualification, name="qualification"),
        path("<slug:slug>/hold/", hold_views.heartbeat, name="hold"),
        path("<slug:slug>/rate/", rating_views.rate_next, name="rate_next"),
        path("<slug:slug>/rate/<int:pos>/", rating_views.rate, name="rate"),
        path("<slug:slug>/done/", views.done, name="done"),
        path("<slug:slug>/screened-out/", views.screened_out, name="screened_out"),
        path("<slug:slug>/timed-out/", views.timed_out, name="timed_out"),
        path("<slug:slug>/closed/", views.closed, name="closed"),
    ],
    "participate",
)
