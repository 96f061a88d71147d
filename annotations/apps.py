from django.apps import AppConfig
from django.db.backends.signals import connection_created


class AnnotationsConfig(AppConfig):
    name = "annotations"
    verbose_name = "AmbiStory data"

    def ready(self) -> None:
        from .sqlite import register_aggregates

        connection_created.connect(register_aggregates, dispatch_uid="annotations-sqlite")
