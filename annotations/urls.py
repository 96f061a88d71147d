from django.urls import path

from . import views

app_name = "annotations"
urlpatterns = [
    path("", views.setup_list, name="setup_list"),
]
