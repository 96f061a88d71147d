from django.apps import AppConfig


class WritingConfig(AppConfig):
    name = "writing"
    verbose_name = "AmbiStory writing"

    def ready(self) -> None:
        from studies.activities import register

        from .activities import ENDINGS, SENTENCES

        register(SENTENCES)
        register(ENDINGS)
