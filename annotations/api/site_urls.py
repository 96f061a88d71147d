"""Site pages that belong to the API: token management and predictions upload (at /api/)."""

from django.urls import path

from annotations.token_views import api_token
from predictions.upload_views import predictions_upload

app_name = "api-site"
urlpatterns = [
    path("token/", api_token, name="token"),
    path("upload/", predictions_upload, name="upload"),
]
