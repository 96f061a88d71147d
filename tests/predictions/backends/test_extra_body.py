"""``extra_body`` passes only the listed sampling and formatting fields, with sane values;
everything else is refused naming the key (pure: no Django)."""

from __future__ import annotations

import pytest

from predictions.backends.extra_body import ExtraBodyError, clean_extra_body


@pytest.mark.parametrize(
    "body",
    [
        {"n": 128},
        {"best_of": 20},
        {"max_tokens": 10**6},
        {"stream": True},
        {"tools": []},
        {"model": "gpt-4o"},
        {"messages": []},
        {"logprobs": True},
        {"use_beam_search": True},
    ],
    ids=lambda body: next(iter(body)),
)
def test_a_key_outside_the_list_is_refused_naming_it(body):
    key = next(iter(body))
    with pytest.raises(ExtraBodyError, match=f"may not set '{key}'"):
        clean_extra_body(body)


@pytest.mark.parametrize(
    "body, problem",
    [
        ({"max_completion_tokens": 10**9}, "between"),
        ({"max_completion_tokens": 3.5}, "whole number"),
        ({"top_p": float("nan")}, "a number"),
        ({"top_p": True}, "a number"),
        ({"seed": -1}, "between"),
        ({"stop": ["a"] * 5}, "at most 4"),
        ({"stop": "x" * 201}, "200 characters"),
        ({"reasoning_effort": "extreme"}, "one of"),
        ({"chat_template_kwargs": {"nested": {"deep": 1}}}, "flat value"),
        ({"chat_template_kwargs": []}, "object"),
        ({"guided_choice": ["1"] * 21}, "at most 20"),
    ],
)
def test_an_allowed_key_with_an_insane_value_is_refused_naming_it(body, problem):
    key = next(iter(body))
    with pytest.raises(ExtraBodyError, match=f"'{key}' .*{problem}"):
        clean_extra_body(body)


def test_the_usual_fields_pass_unchanged():
    body = {
        "max_completion_tokens": 32,
        "chat_template_kwargs": {"enable_thinking": False},
        "seed": 7,
        "top_p": 0.9,
        "stop": ["\n"],
        "guided_choice": ["1", "2", "3", "4", "5"],
    }
    assert clean_extra_body(body) == body
    assert clean_extra_body(None) == {}


def test_a_body_that_is_not_an_object_is_refused():
    with pytest.raises(ExtraBodyError, match="JSON object"):
        clean_extra_body([1])
