"""Pure rendering of a sense-choice prompt (output ``json_sense_index``) for one item, in
the sensebench style: the context with its ``<t>...</t>`` target, the candidate senses
numbered from 1 in a deterministic per-item order, and the parsing of ``{"sense_index": n}``
back to the candidate's own index."""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Mapping, Sequence

from .registry import Prompt
from .render import RenderError, fill

OUTPUT = "json_sense_index"
TARGET = re.compile(r"<t>(.+?)</t>")
ANSWER = re.compile(r"\{[^{}]*\}")


class SenseIndexError(ValueError):
    """An answer without a usable ``sense_index``."""


def candidate_order(prompt: Prompt, item_id: str, n: int) -> list[int]:
    """The candidates' indices in the order shown: a shuffle seeded by SHA-256 of the
    prompt's ``order_seed`` and the item id (``sense_order: "given"`` keeps the order)."""
    order = list(range(n))
    if prompt.parameters.get("sense_order", "random_fixed") == "given":
        return order
    seed = f"{prompt.parameters.get('order_seed', 0)}:{item_id}".encode()
    random.Random(int.from_bytes(hashlib.sha256(seed).digest()[:8], "big")).shuffle(order)
    return order


def _candidate_line(number: int, candidate: Mapping, params: Mapping) -> str:
    parts = []
    if params.get("include_definition", True):
        parts.append(f"definition={candidate.get('gloss', '')}")
    synonyms = list(candidate.get("synonyms") or [])[: params.get("synonyms_max_per_sense", 6)]
    if params.get("include_synonyms", True) and synonyms:
        parts.append(f"synonyms={', '.join(synonyms)}")
    examples = list(candidate.get("examples") or [])[: params.get("examples_max_per_sense", 2)]
    if params.get("include_examples", True) and examples:
        parts.append(f"examples={'; '.join(examples)}")
    return f"{number}. " + " | ".join(parts)


def render_sense_choice(prompt: Prompt, sample: Mapping) -> tuple[list[dict], list[int]]:
    """The exact messages for one sense-choice item and the candidate order they show
    (``order[k]`` is the candidate index of the number ``k + 1``)."""
    if prompt.output != OUTPUT:
        raise RenderError(f"prompt {prompt.id} is not a sense-choice prompt")
    context = sample.get("context") or sample.get("sentence", "")
    found = TARGET.search(context)
    if found is None:
        raise RenderError(f"item {sample.get('id')}: the context has no <t>...</t> target")
    candidates: Sequence[Mapping] = sample.get("candidates") or []
    order = candidate_order(prompt, str(sample.get("id", "")), len(candidates))
    lines = [_candidate_line(k + 1, candidates[i], prompt.parameters) for k, i in enumerate(order)]
    values = {
        "target_lemma": sample.get("homonym", ""),
        "target_text": found.group(1),
        "context": context,
        "candidate_senses": "\n".join(lines),
    }
    messages = []
    if prompt.system:
        messages.append({"role": "system", "content": fill(prompt.system, values)})
    messages.append({"role": "user", "content": fill(prompt.user, values)})
    return messages, order


def parse_sense_index(answer: str, order: Sequence[int]) -> int:
    """The candidate index a ``{"sense_index": n}`` answer names (n counts from 1 in the
    order shown); ``SenseIndexError`` when there is none or it is out of range."""
    for match in ANSWER.finditer(answer or ""):
        try:
            value = json.loads(match.group(0)).get("sense_index")
        except (json.JSONDecodeError, AttributeError):
            continue
        if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= len(order):
            return order[value - 1]
    raise SenseIndexError(f"no sense_index between 1 and {len(order)} in the answer")
