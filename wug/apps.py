from django.apps import AppConfig


class WugConfig(AppConfig):
    name = "wug"
    verbose_name = "Word Usage Graphs"
