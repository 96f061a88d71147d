"""FOOL's own prompt (``fool-sense-label-v1``, output ``sense_label``): the paper's wording
byte for byte for a real item (golden files), labels from the sense keys, the answer's label
mapped back to the candidate, and the chat backend using it end to end."""

from __future__ import annotations

import json

import pytest

from ambisite.llm_endpoints import parse_endpoints
from predictions.backends import get_backend
from predictions.prompts import get_prompt
from predictions.prompts.render import RenderError
from predictions.prompts.sense_choice import SenseIndexError
from predictions.prompts.sense_label import (
    labels_of,
    parse_sense_label,
    render_sense_label,
    sense_label,
)
from tests.llm_server import LLMServer, Reply
from tests.predictions.test_sense_choice_prompt import GOLDEN, as_text, fool_item

PROMPT = "fool-sense-label-v1"


@pytest.mark.parametrize("item_id", ["bank_river-4-1", "apple_fruit-3-1"])
def test_the_prompt_renders_the_golden_text_for_a_real_item(item_id):
    messages, _ = render_sense_label(get_prompt(PROMPT), fool_item(item_id))
    golden = (GOLDEN / f"{PROMPT}.{item_id}.txt").read_text(encoding="utf-8")
    assert as_text(messages) == golden


def test_the_text_is_fools_wording_with_the_plain_sentence():
    messages, order = render_sense_label(get_prompt(PROMPT), fool_item("apple_fruit-3-1"))
    [user] = messages
    labels = labels_of(fool_item("apple_fruit-3-1"))
    first, second = labels[order[0]], labels[order[1]]
    assert user["content"].startswith("In this sentence: She packed")
    assert "<t>" not in user["content"]
    assert (
        f"classify the occurrence of the word apple for {first} or for {second}."
        in (user["content"])
    )
    assert user["content"].endswith(f"Answer only by one of these options: {first} or {second}.")


def test_a_label_comes_from_the_label_else_the_key_without_the_lemma():
    assert sense_label({"key": "apple_apple_inc"}, "apple") == "apple inc"
    assert sense_label({"key": "pitcher_jug"}, "Pitcher") == "jug"
    assert sense_label({"key": "x", "label": "company"}, "apple") == "company"


def test_the_answer_maps_to_the_candidate_whose_label_it_gives():
    labels = ["bank", "river"]
    assert parse_sense_label("River.", labels) == 1
    assert parse_sense_label('"bank"', labels) == 0
    assert parse_sense_label("It is used for river here", labels) == 1
    for bad in ("", "money", "bank or river"):
        with pytest.raises(SenseIndexError):
            parse_sense_label(bad, labels)


def test_only_two_distinctly_labelled_senses_are_rendered():
    item = fool_item("bat_mammal-1-1")
    three = {**item, "candidates": [*item["candidates"], {"key": "bat_wink", "gloss": "g"}]}
    with pytest.raises(RenderError, match="two senses, not 3"):
        render_sense_label(get_prompt(PROMPT), three)
    same = {**item, "candidates": [{"key": "bat_a", "gloss": "x"}, {"key": "bat_a", "gloss": "y"}]}
    with pytest.raises(RenderError, match="two different labels"):
        render_sense_label(get_prompt(PROMPT), same)


@pytest.fixture
def server(settings):
    with LLMServer() as running:
        settings.LLM_ENDPOINTS = parse_endpoints(
            json.dumps({"test": {"base_url": running.base_url, "models": ["*"]}})
        )
        yield running


def test_the_chat_backend_sends_fools_prompt_and_maps_the_label(server):
    item = fool_item("bank_river-4-1")
    messages, _ = render_sense_label(get_prompt(PROMPT), item)
    river = labels_of(item).index("river")
    server.script(Reply.text("river"))
    backend = get_backend(
        "sense_choice_chat", endpoint="test", model="tiny", backoff_base=0.01, prompt=PROMPT
    )
    [out] = backend.predict_batch([item])
    assert server.requests[0].body["messages"] == messages
    assert out.score == float(river) and out.raw_output == "river"
