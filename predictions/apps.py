import logging

from django.apps import AppConfig

log = logging.getLogger(__name__)


class PredictionsConfig(AppConfig):
    name = "predictions"
    verbose_name = "Model runs"

    def ready(self) -> None:
        from celery.signals import worker_ready

        from annotations.signals import reference_texts_changed

        worker_ready.connect(recover_lost_runs, dispatch_uid="predictions.recover_lost_runs")
        reference_texts_changed.connect(
            outdate_predictions, dispatch_uid="predictions.outdate_predictions"
        )


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


def outdate_predictions(sender=None, *, sample_ids: list[int], **kwargs) -> None:
    """A reference text edit: unfinished runs drop their predictions of the samples."""
    from predictions.runs.services import predictions_outdate

    predictions_outdate(sample_ids=sample_ids)
