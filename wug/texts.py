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


def target_window(
    context: str,
    target: tuple[int, int],
    sentence: tuple[int | None, int | None],
    max_chars: int = 600,
) -> tuple[str, tuple[int, int]]:
    """The text an encoder reads for a use: the target's sentence, cut to at most
    ``max_chars`` around the target, with the target's span inside it (encoders truncate
    long inputs, which would drop a target near the end of a long context)."""
    parts = use_parts(context, target, sentence)
    lead, tail = parts.lead, parts.tail
    room = max(0, max_chars - len(parts.target))
    keep_lead = min(len(lead), max(room // 2, room - len(tail)))
    lead = lead[len(lead) - keep_lead :]
    tail = tail[: max(0, room - keep_lead)]
    return lead + parts.target + tail, (len(lead), len(lead) + len(parts.target))
