"""Pure rendering of a prompt for one sample (or one story's two senses) into chat messages.

Slots are ``{{name}}``; a slot the renderer does not know is an error, never left in the text.
Values are inserted once and never re-scanned, so a story that contains ``{{...}}`` is safe.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from .registry import Prompt

SLOT = re.compile(r"\{\{\s*(\w+)\s*\}\}")


class RenderError(ValueError):
    pass


def fill(template: str, values: Mapping[str, object]) -> str:
    """Replace every ``{{name}}`` in ``template`` with ``values[name]``."""

    def replace(match: re.Match) -> str:
        name = match.group(1)
        if name not in values:
            raise RenderError(f"template slot {{{{{name}}}}} has no value")
        return str(values[name])

    return SLOT.sub(replace, template)


def story_text(sample: Mapping, params: Mapping) -> str:
    """Precontext, the marked ambiguous sentence and the ending, as the paper joins them."""
    marker = params.get("target_marker", "***")
    ending = sample.get("ending", "") if params.get("include_ending", True) else ""
    parts = [
        (sample.get("precontext") or "").strip(),
        f"{marker}{(sample.get('sentence') or '').strip()}{marker}",
        (ending or "").strip(),
    ]
    return params.get("story_join", " ").join(part for part in parts if part)


def _sort_key(sample: Mapping) -> tuple:
    sid = str(sample.get("id", ""))
    return (0, int(sid), "") if sid.isdigit() else (1, 0, sid)


def comparative_order(sample: Mapping, other: Mapping) -> tuple[Mapping, Mapping]:
    """The two senses in the order the comparative prompt shows them (A, B): by sample id."""
    return tuple(sorted((sample, other), key=_sort_key))  # type: ignore[return-value]


def _shots_block(prompt: Prompt) -> str:
    if not prompt.shots:
        return ""
    rendered = [
        fill(prompt.shot_template, {**shot, "story": story_text(shot, prompt.parameters)})
        for shot in prompt.shots
    ]
    return prompt.shots_header + "".join(rendered)


def _values(prompt: Prompt, sample: Mapping, other: Mapping | None) -> dict:
    values = {
        "homonym": sample.get("homonym", ""),
        "judged_meaning": sample.get("judged_meaning", ""),
        "example_sentence": sample.get("example_sentence", ""),
        "story": story_text(sample, prompt.parameters),
        "shots": _shots_block(prompt),
    }
    if prompt.is_comparative:
        if other is None:
            raise RenderError(f"prompt {prompt.id} needs the other sense of the story")
        first, second = comparative_order(sample, other)
        values.update(
            meaning_a=first.get("judged_meaning", ""),
            example_a=first.get("example_sentence", ""),
            meaning_b=second.get("judged_meaning", ""),
            example_b=second.get("example_sentence", ""),
        )
    return values


def render(prompt: Prompt, sample: Mapping, other_sample: Mapping | None = None) -> list[dict]:
    """The exact messages sent to a chat model: ``[{"role": ..., "content": ...}, ...]``.

    An empty system template means no system message (the paper's prompt is one text).
    ``other_sample`` is the other sense of the same story, required by comparative prompts.
    """
    values = _values(prompt, sample, other_sample)
    messages = []
    if prompt.system:
        messages.append({"role": "system", "content": fill(prompt.system, values)})
    messages.append({"role": "user", "content": fill(prompt.user, values)})
    return messages


def reask_messages(messages: list[dict], answer: str, prompt: Prompt) -> list[dict]:
    """The conversation for one re-ask after an answer that could not be parsed."""
    reask = prompt.reask or "Answer with the score only."
    return [*messages, {"role": "assistant", "content": answer}, {"role": "user", "content": reask}]
