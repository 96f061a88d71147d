"""The studies app's refusals that more than one of its modules raise (``services`` re-exports
them, so callers keep naming ``services.StudyError``)."""

from __future__ import annotations


class StudyError(Exception):
    """A study action refused, with a reason a person can read."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class StudyBusy(StudyError):
    """Too many participants hold a batch without having qualified yet, or such holds take
    every place: an arrival may succeed in a few minutes."""


class ClientHoldsFull(StudyBusy):
    """This client (``ambisite.ratelimit.client_key``) holds as many places in the study as
    it may (``HOLD_UNQUALIFIED_PER_CLIENT``, ``HOLD_TOTAL_PER_CLIENT``)."""


class SessionOver(StudyError):
    """The participant can no longer rate (finished, screened out or timed out)."""


class TextChanged(StudyError):
    """The item's text was edited after the page was shown: nothing is stored."""
