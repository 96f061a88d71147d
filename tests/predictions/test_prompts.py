"""Prompts as versioned data and their pure renderer (no database)."""

from __future__ import annotations

import json

import pytest

from predictions.prompts import (
    DATA_DIR,
    InvalidPrompt,
    RenderError,
    UnknownPrompt,
    all_prompts,
    comparative_order,
    get_prompt,
    parse_prompt,
    reask_messages,
    render,
    story_text,
)
from tests.factories import ambistory_setup

PAPER_INTRO = (
    'You will see a short text in which one sentence is marked with "***". That sentence '
    "contains a word that can typically take on multiple different meanings, depending on the "
    "context. One of those meanings is given to you."
)
PAPER_END = (
    'In this context, how plausible is it that the meaning of the word "bank" is '
    '"a financial institution"?\n\n'
    "Return only the numbered score (1, 2, 3, 4 or 5). Do not return anything else!"
)


def sample(sid: str = "2", **changes) -> dict:
    setup = ambistory_setup(0)
    return {**setup[sid], "id": sid, **changes}


def test_every_prompt_file_is_named_by_its_id_and_carries_the_schema_fields():
    ids = [p.id for p in all_prompts()]
    assert ids == sorted(ids)
    assert {"ambistory-b3-zeroshot-v1", "ambistory-b3-4shot-v1", "ambistory-comparative-v1"} <= set(
        ids
    )
    for prompt in all_prompts():
        data = json.loads((DATA_DIR / f"{prompt.id}.json").read_text())
        assert data["schema"] == "ambisite-prompt-v1"
        assert prompt.id.endswith(f"-v{prompt.version}")
        assert {"system", "user", "parameters", "version"} <= set(data)
        assert len(prompt.digest) == 64


def test_the_zero_shot_prompt_is_the_papers_b3_text_with_the_sentence_marked():
    [message] = render(get_prompt("ambistory-b3-zeroshot-v1"), sample())
    text = message["content"]

    assert message["role"] == "user"
    assert text.startswith(PAPER_INTRO)
    assert (
        "* **2**: The displayed meaning is theoretically conceivable, but less plausible " in text
    )
    assert text.endswith(PAPER_END)
    assert (
        "Now take a look at the following text: Tom needed cash. He walked into town. The sun "
        "was shining. ***He stopped at the bank.*** He counted the money he withdrew.\n\n"
    ) in text
    assert "Correct answer" not in text and "{{" not in text


def test_the_four_shot_prompt_adds_the_guidelines_examples_in_the_papers_order():
    zero = render(get_prompt("ambistory-b3-zeroshot-v1"), sample())[0]["content"]
    four = render(get_prompt("ambistory-b3-4shot-v1"), sample())[0]["content"]
    shots = four[four.index("Take a look at the following examples.") : four.index("Now take")]

    assert four.replace(shots, "") == zero
    answers = [line for line in shots.splitlines() if line.startswith("Correct answer")]
    assert answers == [f"Correct answer: {n}" for n in (1, 3, 2, 5)]
    assert "***The bat flew out of the cave.***" in shots
    assert (
        "The composer often spontaneously had ideas for new melodies. ***She writes notes on a "
        "sheet of paper.*** She can later turn these into a piece." in shots
    )
    assert 'the meaning of the word "draws" is "to attract; direct towards itself"?' in shots


def test_an_open_ended_story_has_no_trailing_ending():
    text = story_text(sample("0"), get_prompt("ambistory-b3-zeroshot-v1").parameters)
    assert text.endswith("***He stopped at the bank.***")


def test_the_comparative_prompt_shows_both_senses_in_sample_id_order():
    prompt = get_prompt("ambistory-comparative-v1")
    bank, river = sample("2"), sample("3")

    forward = render(prompt, bank, river)
    backward = render(prompt, river, bank)

    assert forward == backward
    system, user = forward
    assert system["role"] == "system" and user["role"] == "user"
    assert 'Meaning A: "a financial institution"' in user["content"]
    assert 'Meaning B: "sloping land beside a body of water"' in user["content"]
    assert user["content"].endswith('{"A": 4, "B": 2}.')
    assert comparative_order(sample("2", id="10"), sample("3", id="9"))[0]["id"] == "9"


def test_the_comparative_prompt_needs_the_other_sense():
    with pytest.raises(RenderError, match="other sense"):
        render(get_prompt("ambistory-comparative-v1"), sample())


def test_a_story_with_template_braces_is_inserted_literally():
    [message] = render(get_prompt("ambistory-b3-zeroshot-v1"), sample(ending="{{homonym}} x"))
    assert "***He stopped at the bank.*** {{homonym}} x" in message["content"]


def test_reask_appends_the_answer_and_the_prompts_reminder():
    prompt = get_prompt("ambistory-b3-zeroshot-v1")
    messages = render(prompt, sample())
    again = reask_messages(messages, "maybe", prompt)
    assert again[:1] == messages
    assert again[1:] == [
        {"role": "assistant", "content": "maybe"},
        {"role": "user", "content": prompt.reask},
    ]


def test_unknown_prompts_and_invalid_files_are_rejected():
    with pytest.raises(UnknownPrompt, match="ambistory-b3-zeroshot-v1"):
        get_prompt("nope-v1")
    good = json.loads((DATA_DIR / "ambistory-b3-zeroshot-v1.json").read_text())
    with pytest.raises(InvalidPrompt, match="schema"):
        parse_prompt(json.dumps({**good, "schema": "other"}))
    with pytest.raises(InvalidPrompt, match="missing user"):
        parse_prompt(json.dumps({k: v for k, v in good.items() if k != "user"}))
    with pytest.raises(InvalidPrompt, match="unknown fields"):
        parse_prompt(json.dumps({**good, "temperature": 1}))


def test_an_unknown_slot_is_an_error_not_left_in_the_text():
    good = json.loads((DATA_DIR / "ambistory-b3-zeroshot-v1.json").read_text())
    broken = parse_prompt(json.dumps({**good, "user": "{{story}} {{mystery}}"}))
    with pytest.raises(RenderError, match="mystery"):
        render(broken, sample())
