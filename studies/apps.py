from django.apps import AppConfig


class StudiesConfig(AppConfig):
    name = "studies"
    verbose_name = "Crowd studies"
