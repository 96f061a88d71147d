"""The submit-time rules for written sentences and endings. Pure: no Django.

A word counts where the shown word form appears as a whole word, in any case: "Bank",
"BANK" and the possessive "bank's" are the word "bank"; "banks" (another form) and
"embankment" (another word) are not. Hyphens and apostrophes separate words ("bank-side"
holds "bank").
"""

from __future__ import annotations

import re

MIN_WORDS = 3
MAX_CHARS = 300


def occurrences(text: str, form: str) -> int:
    """How often ``form`` appears in ``text`` as a whole word, case-insensitively."""
    form = form.strip()
    if not form:
        return 0
    pattern = re.compile(rf"(?<!\w){re.escape(form)}(?!\w)", re.IGNORECASE)
    return len(pattern.findall(text))


def _shape_problem(text: str, what: str) -> str | None:
    text = text.strip()
    if not text:
        return f"Please write your {what}."
    if len(text) > MAX_CHARS:
        return f"Your {what} is {len(text)} characters long; please keep it under {MAX_CHARS}."
    if len(re.findall(r"\w+", text)) < MIN_WORDS:
        return f"Your {what} is too short: please write a whole sentence."
    return None


def sentence_problem(text: str, form: str) -> str | None:
    """Why an ambiguous sentence is refused, or None: non-empty, a sane length, and the
    shown word exactly once."""
    problem = _shape_problem(text, "sentence")
    if problem:
        return problem
    n = occurrences(text, form)
    if n == 0:
        return f'Your sentence must use the word "{form}".'
    if n > 1:
        return (
            f'The word "{form}" must appear exactly once in your sentence (it appears {n} times).'
        )
    return None


def ending_problem(text: str, form: str) -> str | None:
    """Why an ending is refused, or None: non-empty, a sane length, and WITHOUT the word."""
    problem = _shape_problem(text, "ending sentence")
    if problem:
        return problem
    if occurrences(text, form):
        return (
            f'Your ending must not contain the word "{form}" again. Please write the ending '
            f'without using "{form}".'
        )
    return None
