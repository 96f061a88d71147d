"""Sense choice through the OpenAI-compatible backend, against the local test server: the
exact rendered prompt is sent, the answer's number maps back to the candidate, a bad answer
is re-asked once and then counted as no choice."""

from __future__ import annotations

import json

import pytest

from ambisite.llm_endpoints import parse_endpoints
from predictions.backends import get_backend
from predictions.prompts import get_prompt
from predictions.prompts.sense_choice import render_sense_choice
from tests.llm_server import LLMServer, Reply
from tests.predictions.test_sense_choice_prompt import fool_item


@pytest.fixture
def server(settings):
    with LLMServer() as running:
        settings.LLM_ENDPOINTS = parse_endpoints(
            json.dumps({"test": {"base_url": running.base_url, "models": ["*"]}})
        )
        yield running


def chat(**params):
    return get_backend(
        "sense_choice_chat", endpoint="test", model="tiny", backoff_base=0.01, **params
    )


def test_it_sends_the_rendered_prompt_and_maps_the_answer_to_the_candidate(server):
    item = fool_item("bank_river-4-1")
    messages, order = render_sense_choice(get_prompt("sense-choice-v1"), item)
    server.script(Reply.text('{"sense_index": 1}'))
    [out] = chat().predict_batch([item])
    assert server.requests[0].body["messages"] == messages
    assert out.score == float(order[0]) and out.raw_output == '{"sense_index": 1}'


def test_a_bad_answer_is_asked_again_then_counted_as_no_choice(server):
    item = fool_item("bat_mammal-1-1")
    server.script(Reply.text("the mammal"), Reply.text("mammal, surely"))
    backend = chat()
    [out] = backend.predict_batch([item])
    assert out.score == -1.0 and backend.failures == 1 and len(server.requests) == 2


def test_a_plausibility_prompt_is_refused(server):
    from predictions.backends import ParamError

    with pytest.raises(ParamError, match="not a sense-choice prompt"):
        chat(prompt="ambistory-b3-zeroshot-v1")
