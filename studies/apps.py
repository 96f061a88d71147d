from django.apps import AppConfig


class StudiesConfig(AppConfig):
    name = "studies"
    verbose_name = "Crowd studies"

    def ready(self) -> None:
        from annotations.scope import register_study_finder

        from . import activities
        from .scope import find_study

        register_study_finder(find_study)
        activities.register(activities.RATING)
