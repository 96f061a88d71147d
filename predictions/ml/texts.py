"""Model inputs built from one AmbiStory sample (a plain dict with the JSON fields).

Only input fields are read here (homonym, judged_meaning, precontext, sentence, ending,
example_sentence); labels (choices, average, stdev) never are.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

Sample = Mapping[str, Any]

MARK_OPEN = "**"
MARK_CLOSE = "**"

__all__ = [
    "Sample",
    "marked_sentence",
    "story_text",
    "sense_text",
    "gloss_text",
    "story_key",
    "setup_key",
    "field",
]


def field(sample: Sample, name: str) -> str:
    """A text field of ``sample`` as a stripped string ('' when missing or None)."""
    value = sample.get(name)
    return "" if value is None else str(value).strip()


def marked_sentence(sample: Sample) -> str:
    """The ambiguous sentence wrapped in ``**`` marks, e.g. ``**The potential ...**``."""
    return f"{MARK_OPEN}{field(sample, 'sentence')}{MARK_CLOSE}"


def story_text(sample: Sample, *, mark: bool = True, with_ending: bool = True) -> str:
    """precontext + (marked) ambiguous sentence + ending, joined by single spaces."""
    sentence = marked_sentence(sample) if mark else field(sample, "sentence")
    parts = [field(sample, "precontext"), sentence]
    if with_ending:
        parts.append(field(sample, "ending"))
    return " ".join(p for p in parts if p)


def gloss_text(sample: Sample) -> str:
    """``"homonym: gloss"`` without the example sentence."""
    return f"{field(sample, 'homonym')}: {field(sample, 'judged_meaning')}"


def sense_text(sample: Sample) -> str:
    """``"homonym: gloss (as in: example)"``; the example part is left out when empty."""
    example = field(sample, "example_sentence")
    base = gloss_text(sample)
    return f"{base} (as in: {example})" if example else base


def setup_key(sample: Sample) -> tuple[str, str, str]:
    """(homonym, precontext, sentence): the six samples of one setup share it."""
    return (field(sample, "homonym"), field(sample, "precontext"), field(sample, "sentence"))


def story_key(sample: Sample) -> tuple[str, str, str, str]:
    """setup_key + ending: the (usually two) senses judged on one story share it."""
    return setup_key(sample) + (field(sample, "ending"),)
