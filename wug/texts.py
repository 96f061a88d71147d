"""How a use is shown: the target marked by its character span, the rest of its sentence in
the foreground and the context outside the sentence as background. Pure: no Django."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class UseParts:
    before: str  # context before the target sentence (background)
    lead: str  # the sentence up to the target
    target: str
    tail: str  # the sentence after the target
    after: str  # context after the target sentence (background)


def use_parts(
    context: str, target: tuple[int, int], sentence: tuple[int | None, int | None]
) -> UseParts:
    """Split a context by its spans; a missing sentence span is the whole context, and spans
    are clamped to the context (the published data has sentence ends one past it)."""
    n = len(context)
    t0, t1 = (min(max(0, x), n) for x in target)
    s0 = 0 if sentence[0] is None else min(max(0, sentence[0]), t0)
    s1 = n if sentence[1] is None else max(min(n, sentence[1]), t1)
    return UseParts(context[:s0], context[s0:t0], context[t0:t1], context[t1:s1], context[s1:])
