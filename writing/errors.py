"""The writing pipeline's refusals, with a reason a person can read: raised by its services
(``services``, ``pool``, ``review``, ``examples``, ``swaps``) and shown by its views."""

from __future__ import annotations


class WritingError(Exception):
    """A writing action refused, with a reason a person can read."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class Refused(WritingError):
    """A submitted text breaks a rule; the text is kept as the draft."""


class TooLate(WritingError):
    """A text sent after the time limit that is not saved; ``reason`` says why (the writer
    is, or will be, timed out: the time-up page with their code shows it)."""
