from django.apps import AppConfig


class DashboardsConfig(AppConfig):
    name = "dashboards"
    verbose_name = "Research dashboards"

    def ready(self) -> None:
        from annotations.signals import bulk_data_changed

        from .precompute import on_bulk_change

        # after an import or a study opened: the default pages computed in the worker
        bulk_data_changed.connect(on_bulk_change, dispatch_uid="dashboards.precompute")
