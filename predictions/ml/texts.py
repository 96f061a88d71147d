"""Model inputs built from one AmbiStory sample (a plain dict with the JSON fields).

Only input fields are read here (homonym, judged_meaning, precontext, sentence, ending,
example_sentence); labels (choices, average, stdev) never are.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

# One sample's JSON fields (not the annotations.models.Sample row).
SampleFields = Mapping[str, Any]

MARK_OPEN = "**"
MARK_CLOSE = "**"

__all__ = [
    "SampleFields",
    "marked_sentence",
    "story_text",
    "sense_text",
    "gloss_text",
    "story_key",
    "setup_key",
    "story_groups",
    "partners",
    "field",
]


def field(sample: SampleFields, name: str) -> str:
    """A text field of ``sample`` as a stripped string ('' when missing or None)."""
    value = sample.get(name)
    return "" if value is None else str(value).strip()


def marked_sentence(sample: SampleFields) -> str:
    """The ambiguous sentence wrapped in ``**`` marks, e.g. ``**The potential ...**``."""
    return f"{MARK_OPEN}{field(sample, 'sentence')}{MARK_CLOSE}"


def story_text(sample: SampleFields, *, mark: bool = True, with_ending: bool = True) -> str:
    """precontext + (marked) ambiguous sentence + ending, joined by single spaces."""
    sentence = marked_sentence(sample) if mark else field(sample, "sentence")
    parts = [field(sample, "precontext"), sentence]
    if with_ending:
        parts.append(field(sample, "ending"))
    return " ".join(p for p in parts if p)


def gloss_text(sample: SampleFields) -> str:
    """``"homonym: gloss"`` without the example sentence."""
    return f"{field(sample, 'homonym')}: {field(sample, 'judged_meaning')}"


def sense_text(sample: SampleFields) -> str:
    """``"homonym: gloss (as in: example)"``; the example part is left out when empty."""
    example = field(sample, "example_sentence")
    base = gloss_text(sample)
    return f"{base} (as in: {example})" if example else base


def setup_key(sample: SampleFields) -> tuple[str, str, str]:
    """(homonym, precontext, sentence): the six samples of one setup share it."""
    return (field(sample, "homonym"), field(sample, "precontext"), field(sample, "sentence"))


def story_key(sample: SampleFields) -> tuple[str, str, str, str]:
    """setup_key + ending: the (usually two) senses judged on one story share it."""
    return setup_key(sample) + (field(sample, "ending"),)


def story_groups(keys: Sequence[Hashable]) -> list[list[int]]:
    """Indices grouped by key (e.g. :func:`story_key`): groups in order of first appearance,
    indices in their own order."""
    groups: dict[Hashable, list[int]] = {}
    for index, key in enumerate(keys):
        groups.setdefault(key, []).append(index)
    return list(groups.values())


def partners(
    stories: Sequence[Hashable], senses: Sequence[Hashable] | None = None
) -> list[int | None]:
    """The other sense of the same story: for each index, the first other index with the same
    story key (and, where ``senses`` are given, a different sense); None when the story has
    one sense. The one pairing rule of features, post-processing, fine-tuning and batching."""
    found: list[int | None] = [None] * len(stories)
    for group in story_groups(stories):
        for i in group:
            found[i] = next(
                (j for j in group if j != i and (senses is None or senses[j] != senses[i])),
                None,
            )
    return found
