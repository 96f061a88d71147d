from django.urls import path

from predictions.web import prompt_views

app_name = "prompts"
urlpatterns = [
    path("", prompt_views.prompt_list, name="list"),
    path("<slug:prompt_id>/", prompt_views.prompt_detail, name="detail"),
    path("<slug:prompt_id>.json", prompt_views.prompt_download, name="download"),
]
