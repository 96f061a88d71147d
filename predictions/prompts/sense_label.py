"""FOOL's prompt-based classification (output ``sense_label``), pure: the plain sentence, the
target word and the two senses' short labels, and the answer, one of those labels, mapped back
to the candidate's index.

FOOL (seeds/003, section 4.2) asked: "In this sentence: <sentence>, classify the occurrence of
the word <word> for <label> or for <label>. Answer only by one of these options: <label> or
<label>." A candidate's label is its ``label`` when it has one, else its ``key`` without the
lemma's prefix, underscores as spaces (``apple_fruit``: "fruit", FOOL's own key style).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from .registry import Prompt
from .render import RenderError, fill
from .sense_choice import OUTPUT as CHOICE_OUTPUT
from .sense_choice import TARGET, SenseIndexError, candidate_order, render_sense_choice

OUTPUT = "sense_label"


def sense_label(candidate: Mapping, lemma: str) -> str:
    """The short name FOOL's prompt offers for a candidate sense."""
    if candidate.get("label"):
        return str(candidate["label"])
    key = str(candidate.get("key") or "")
    prefix = f"{lemma.lower()}_"
    short = key[len(prefix) :] if key.lower().startswith(prefix) else key
    return short.replace("_", " ").strip()


def render_sense_label(prompt: Prompt, sample: Mapping) -> tuple[list[dict], list[int]]:
    """The exact messages for one two-sense item and the order its labels are offered in."""
    if prompt.output != OUTPUT:
        raise RenderError(f"prompt {prompt.id} is not a sense-label prompt")
    item = sample.get("id")
    context = sample.get("context") or sample.get("sentence", "")
    found = TARGET.search(context)
    if found is None:
        raise RenderError(f"item {item}: the context has no <t>...</t> target")
    candidates: Sequence[Mapping] = sample.get("candidates") or []
    if len(candidates) != 2:
        raise RenderError(f"item {item}: FOOL's prompt offers two senses, not {len(candidates)}")
    labels = labels_of(sample)
    if not all(labels) or labels[0].lower() == labels[1].lower():
        raise RenderError(f"item {item}: the two senses need two different labels (or keys)")
    order = candidate_order(prompt, str(item or ""), 2)
    values = {
        # FOOL's example runs the sentence into ", classify" without its full stop
        "sentence": TARGET.sub(lambda m: m.group(1), context).strip().rstrip("."),
        "target_text": found.group(1),
        "label_1": labels[order[0]],
        "label_2": labels[order[1]],
    }
    messages = []
    if prompt.system:
        messages.append({"role": "system", "content": fill(prompt.system, values)})
    messages.append({"role": "user", "content": fill(prompt.user, values)})
    return messages, order


def labels_of(sample: Mapping) -> list[str]:
    lemma = str(sample.get("homonym") or sample.get("lemma") or "")
    return [sense_label(c, lemma) for c in sample.get("candidates") or []]


def parse_sense_label(answer: str, labels: Sequence[str]) -> int:
    """The candidate index whose label the answer gives: the whole answer (quotes, a final
    full stop and case aside), else the one label it contains as a phrase; ``SenseIndexError``
    when none or both."""
    text = (answer or "").strip().strip("\"'").rstrip(".").strip().lower()
    lowered = [label.lower() for label in labels]
    if text in lowered:
        return lowered.index(text)
    found = [i for i, label in enumerate(lowered) if re.search(rf"\b{re.escape(label)}\b", text)]
    if len(found) == 1:
        return found[0]
    raise SenseIndexError(f"the answer names {'both' if found else 'neither'} of {list(labels)}")


SENSE_OUTPUTS = (CHOICE_OUTPUT, OUTPUT)


def render_sense_prompt(prompt: Prompt, sample: Mapping) -> tuple[list[dict], list[int]]:
    """Messages and candidate order of either sense-choice prompt kind (the prompt page)."""
    if prompt.output == OUTPUT:
        return render_sense_label(prompt, sample)
    return render_sense_choice(prompt, sample)
