from django.apps import AppConfig


class StudiesConfig(AppConfig):
    name = "studies"
    verbose_name = "Crowd studies"

    def ready(self) -> None:
        from annotations.scope import register_study_finder

        from .scope import find_study

        register_study_finder(find_study)
