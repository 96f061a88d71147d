"""Site pages that belong to the API: token management and predictions upload (at /api/).

Part of the composition root (like :mod:`ambisite.urls`): it wires views of the apps together,
so it may import them; nothing below it may.
"""

from django.urls import path

from ambisite.token_views import api_token
from predictions.web.upload_views import predictions_upload

app_name = "api-site"
urlpatterns = [
    path("token/", api_token, name="token"),
    path("upload/", predictions_upload, name="upload"),
]
