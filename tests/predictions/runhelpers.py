"""Small splits and recording backends for the model-run tests."""

from __future__ import annotations

import threading

from annotations.importers import ambistory_import, parse_ambistory
from annotations.models import Split
from predictions.backends.base import PredictionOutput, PredictorBackend
from tests.factories import ambistory_setup

HOMONYMS = ("bank", "bat", "pitch", "spring", "seal", "bark", "crane", "mole")


def small_split(name: str = "dev", *, setups: int = 4, first_homonym: int = 0) -> Split:
    """``setups`` whole setups (6 samples each), one homonym per setup."""
    data: dict = {}
    for k in range(setups):
        homonym = HOMONYMS[(first_homonym + k) % len(HOMONYMS)]
        data.update(ambistory_setup(len(data), homonym=homonym, sentence=f"{name} {homonym}."))
    ambistory_import(samples=parse_ambistory(data), split=name)
    return Split.objects.get(dataset__name="ambistory", name=name)


class RecordingBackend(PredictorBackend):
    """Predicts 3.0 and remembers every batch it was given (per process)."""

    name = "recording"
    batch_size = 5
    seen: list[list[str]] = []

    def __init__(self, *, batch_size: int = 5, fail_at_batch: int | None = None):
        super().__init__(batch_size=batch_size, fail_at_batch=fail_at_batch)
        self.batch_size = batch_size
        self.fail_at_batch = fail_at_batch

    def predict_batch(self, samples):
        RecordingBackend.seen.append([s["id"] for s in samples])
        if self.fail_at_batch is not None and len(RecordingBackend.seen) > self.fail_at_batch:
            raise RuntimeError("model server went away")
        return [PredictionOutput(score=3.0, raw_output="3") for _ in samples]


class CancellingBackend(RecordingBackend):
    """Cancels its own run while predicting the first batch, as a researcher would."""

    def predict_batch(self, samples):
        from predictions.models import ModelRun
        from predictions.runs.services import run_cancel

        run_cancel(run=ModelRun.objects.get(status=ModelRun.Status.RUNNING))
        return super().predict_batch(samples)


def texts_of(sample: dict) -> str:
    """Every reference text a backend sees of ``sample``, joined: what :class:`PausingBackend`
    answers, so a prediction says which texts it was made from."""
    fields = ("precontext", "sentence", "ending", "judged_meaning", "example_sentence")
    return " | ".join(sample[name] for name in fields)


class PausingBackend(RecordingBackend):
    """Answers the texts it was given (:func:`texts_of`) and, in its batch number
    ``pause_at`` (from 0), says so (``paused``) and waits until the test lets it go on
    (``proceed``), as a slow model would while a researcher edits a text."""

    name = "pausing"
    pause_at = 0
    paused = threading.Event()
    proceed = threading.Event()

    def predict_batch(self, samples):
        if len(RecordingBackend.seen) == PausingBackend.pause_at:
            PausingBackend.paused.set()
            if not PausingBackend.proceed.wait(timeout=30):
                raise RuntimeError("the test never let the backend go on")
        super().predict_batch(samples)
        return [PredictionOutput(score=3.0, raw_output=texts_of(s)) for s in samples]


TEST_BACKENDS = {
    "recording": "tests.predictions.runhelpers.RecordingBackend",
    "pausing": "tests.predictions.runhelpers.PausingBackend",
    "slow_fit": "tests.predictions.runhelpers.SlowFitBackend",
    "cancelling": "tests.predictions.runhelpers.CancellingBackend",
}


class SlowFitBackend(RecordingBackend):
    """A fit that outlives the stale window and says so through ``heartbeat``."""

    name = "slow_fit"
    heartbeats: list = []

    def prepare(self, fit_samples=None):
        from datetime import timedelta

        from django.utils import timezone

        from predictions.models import ModelRun

        long_ago = timezone.now() - timedelta(hours=1)
        ModelRun.objects.update(heartbeat_at=long_ago)  # as after a long training epoch
        self.heartbeat()
        SlowFitBackend.heartbeats = list(ModelRun.objects.values_list("heartbeat_at", flat=True))
