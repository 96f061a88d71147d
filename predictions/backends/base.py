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

from ..errors import PredictionsError

SampleDict = dict


class ParamError(PredictionsError):
    """A run parameter a backend refuses; the message starts with ``params.<field>``, so
    that forms, the API and the commands say which field is at fault."""

    def __init__(self, field: str, message: str):
        super().__init__(f"params.{field}: {message}")
        self.field = field


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
