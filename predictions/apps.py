import logging

from django.apps import AppConfig

log = logging.getLogger(__name__)


class PredictionsConfig(AppConfig):
    name = "predictions"
    verbose_name = "Model runs"

    def ready(self) -> None:
        from celery.signals import worker_ready

        worker_ready.connect(recover_lost_runs, dispatch_uid="predictions.recover_lost_runs")


def recover_lost_runs(sender=None, **kwargs) -> None:
    """On worker start: re-queue runs left running by this node or by a silent worker."""
    from predictions.runs.services import (
        runs_recover,  # models are loaded only once the app registry is ready
    )

    hostname = getattr(sender, "hostname", None)
    if not hostname:
        return
    recovered = runs_recover(worker=hostname)
    if recovered:
        log.warning("re-queued runs left running by a lost worker: %s", recovered)
