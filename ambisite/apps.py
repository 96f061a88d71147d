from django.apps import AppConfig


class AmbisiteConfig(AppConfig):
    """The site package as an app only so that its system checks are registered."""

    name = "ambisite"
    verbose_name = "AmbiSite"

    def ready(self) -> None:
        from . import passwords  # noqa: F401  # registers check_secret_key
