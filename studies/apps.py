from django.apps import AppConfig


class StudiesConfig(AppConfig):
    name = "studies"
    verbose_name = "Crowd studies"

    def ready(self) -> None:
        from annotations.rating_exports import register_group
        from annotations.scope import register_study_finder

        from . import activities
        from .scope import find_study, rating_group

        register_study_finder(find_study)
        register_group(rating_group)
        activities.register(activities.RATING)
        _register_kind_pages()


def _register_kind_pages() -> None:
    """The pages of the task kinds studies brings (``studies.kind_pages``)."""
    from . import kind_details, kind_pages

    pages = [
        kind_pages.KindPage(
            "plausibility", "studies/kinds/story_item.html", "studies/kinds/story_intro.html"
        ),
        kind_pages.KindPage(
            "relatedness",
            "studies/kinds/pair_item.html",
            "studies/kinds/pair_intro.html",
            kind_details.relatedness_details,
        ),
        kind_pages.KindPage(
            "sense_choice",
            "studies/kinds/sense_item.html",
            "studies/kinds/sense_intro.html",
            kind_details.sense_choice_details,
        ),
    ]
    for page in pages:
        kind_pages.register(page)
