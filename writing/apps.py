from django.apps import AppConfig


class WritingConfig(AppConfig):
    name = "writing"
    verbose_name = "AmbiStory writing"
