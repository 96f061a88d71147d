"""The contract every predictor backend fulfils.

A backend turns a batch of samples into scores on the 1-5 plausibility scale. Samples are
plain dicts with the AmbiStory text fields (``id``, ``homonym``, ``judged_meaning``,
``example_sentence``, ``precontext``, ``sentence``, ``ending``) and never carry labels, so
the same code predicts for files whose labels are redacted. Heavy libraries are imported
inside the backend, never at module import.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from ..errors import ParamError

__all__ = ["ParamError", "PredictionOutput", "PredictorBackend", "SampleDict"]

SampleDict = dict


@dataclass(frozen=True)
class PredictionOutput:
    score: float
    raw_output: str = ""
    distribution: tuple[float, ...] | None = None  # P(score = 1..5), if the model gives one


class PredictorBackend:
    """Base class: subclasses set ``name`` and implement :meth:`predict_batch`.

    ``params`` are the run's JSON parameters. :meth:`prepare` is called once before the
    first batch with the samples a backend may fit on (e.g. a calibration split); it must
    never be given the samples being scored.
    """

    name: str = ""
    version: str = "1"
    batch_size: int = 32
    #: Whether batches must hold whole stories (both senses), e.g. for comparative prompts.
    needs_whole_stories: bool = False
    #: Whether batches must hold whole setups (every story of one precontext and sentence,
    #: so whole stories too), e.g. for scores read against the setup's other stories.
    needs_whole_setups: bool = False
    #: Parameters that may name a trained model by its id, and the parameter that takes its
    #: directory instead: the run loop looks the id up (predictions.runs.artifacts), so that a
    #: backend only ever receives a path.
    artifact_params: ClassVar[dict[str, str]] = {}

    def __init__(self, **params):
        self.params = params

    def heartbeat(self) -> None:
        """Say "still alive" during a long :meth:`prepare` (e.g. per training epoch); the
        runner replaces this no-op with one that refreshes the run's heartbeat, so that a
        long fit is never taken for a dead worker."""

    def prepare(self, fit_samples: Sequence[SampleDict] | None = None) -> None:
        """Load models or fit calibrations; the default needs nothing."""

    def predict_batch(self, samples: Sequence[SampleDict]) -> list[PredictionOutput]:
        raise NotImplementedError

    def model_version(self) -> str:
        """What model (weights, endpoint) produced the scores, for the run's record."""
        return self.name
