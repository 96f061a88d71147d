"""The error family of the predictions app: every refusal it raises for bad input or state is a
:class:`PredictionsError` (a ``ValueError``), so callers catch one family and show its text."""

from __future__ import annotations


class PredictionsError(ValueError):
    """A request the predictions app refuses; the message says why, for the user."""


class RunStateError(PredictionsError):
    """The run's status does not allow the action (cancel an inactive run, retry a live one);
    the API answers 409."""


class FitOnScoredSamples(PredictionsError):
    """A run or derived run asked to fit on the samples it is scored on."""


class ParamError(PredictionsError):
    """A run parameter a backend refuses; the message starts with ``params.<field>``, so
    that forms, the API and the commands say which field is at fault."""

    def __init__(self, field: str, message: str):
        super().__init__(f"params.{field}: {message}")
        self.field = field
