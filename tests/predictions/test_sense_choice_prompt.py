"""The sensebench-style sense-choice prompt: byte-for-byte the same text for the same item
and version (golden file), a per-item order that the version's order seed fixes, and the
``{"sense_index": n}`` answer mapped back to the candidate."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from predictions.prompts import get_prompt
from predictions.prompts.render import RenderError
from predictions.prompts.sense_choice import (
    SenseIndexError,
    candidate_order,
    parse_sense_index,
    render_sense_choice,
)

GOLDEN = Path(__file__).parent / "golden"
FOOL = Path(__file__).resolve().parents[2] / "data" / "fool" / "fool-sample.json"


def fool_item(item_id: str) -> dict:
    """An item of the shipped FOOL sample as a backend sees it (no gold)."""
    doc = json.loads(FOOL.read_text())
    raw = next(item for item in doc["items"] if item["id"] == item_id)
    return {
        "id": raw["id"],
        "homonym": raw["lemma"],
        "context": raw["context"],
        "candidates": doc["senses"][raw["lemma"]],
    }


def as_text(messages: list[dict]) -> str:
    return "".join(f"[{m['role']}]\n{m['content']}\n" for m in messages)


@pytest.mark.parametrize("item_id", ["bank_river-4-1", "apple_fruit-3-1"])
def test_the_prompt_renders_the_golden_text_for_a_real_item(item_id):
    messages, _ = render_sense_choice(get_prompt("sense-choice-v1"), fool_item(item_id))
    golden = (GOLDEN / f"sense-choice-v1.{item_id}.txt").read_text(encoding="utf-8")
    assert as_text(messages) == golden


def test_the_same_item_and_version_render_the_same_text_every_time():
    prompt = get_prompt("sense-choice-v1")
    first = render_sense_choice(prompt, fool_item("bat_mammal-1-1"))
    assert all(render_sense_choice(prompt, fool_item("bat_mammal-1-1")) == first for _ in range(5))


def test_another_order_seed_changes_the_order():
    prompt = get_prompt("sense-choice-v1")
    other = dataclasses.replace(
        prompt, parameters={**prompt.parameters, "order_seed": prompt.parameters["order_seed"] + 1}
    )
    ids = [f"item-{n}" for n in range(20)]
    assert [candidate_order(prompt, i, 6) for i in ids] != [
        candidate_order(other, i, 6) for i in ids
    ]
    assert sorted(candidate_order(prompt, "x", 6)) == list(range(6))
    assert len({tuple(candidate_order(prompt, i, 6)) for i in ids}) > 1  # per item


def test_the_answer_names_a_candidate_in_the_order_shown():
    assert parse_sense_index('{"sense_index": 1}', [1, 0]) == 1
    assert parse_sense_index('Sure. {"sense_index": 2}', [1, 0]) == 0
    for bad in ('{"sense_index": 3}', "2", '{"sense_index": true}', ""):
        with pytest.raises(SenseIndexError):
            parse_sense_index(bad, [1, 0])


def test_a_context_without_a_marked_target_is_refused():
    item = {**fool_item("bat_mammal-1-1"), "context": "A bat flew by."}
    with pytest.raises(RenderError, match="<t>"):
        render_sense_choice(get_prompt("sense-choice-v1"), item)
