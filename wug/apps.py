from django.apps import AppConfig


class WugConfig(AppConfig):
    name = "wug"
    verbose_name = "Word Usage Graphs"

    def ready(self) -> None:
        from studies.kind_pages import KindPage, register

        from .crowd_reads import pair_details

        register(KindPage("use_pair", "wug/pair_item.html", "wug/pair_intro.html", pair_details))
