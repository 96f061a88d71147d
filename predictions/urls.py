from django.urls import path

from predictions.web import views

app_name = "runs"
urlpatterns = [
    path("", views.run_list, name="list"),
    path("start/", views.run_start, name="start"),
    path("derive/", views.run_derive_view, name="derive"),
    path("<int:pk>/", views.run_detail, name="detail"),
    path("<int:pk>/progress.json", views.run_progress, name="progress"),
    path("<int:pk>/cancel/", views.run_cancel_view, name="cancel"),
    path("<int:pk>/retry/", views.run_retry_view, name="retry"),
    path("models/train/", views.train_start, name="train"),
    path("models/<int:pk>/", views.trained_model_detail, name="trained_model"),
]
