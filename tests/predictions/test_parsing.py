"""Pure parsing of model answers (no database, no network)."""

from __future__ import annotations

import math

import pytest

from predictions.parsing import (
    ParseError,
    expected_from_logprobs,
    expected_from_top_logprobs,
    parse_comparative,
    parse_score,
    softmax_expected,
)


@pytest.mark.parametrize(
    ("answer", "score"),
    [
        ("4", 4),
        (" 5\n", 5),
        ("Score: 4", 4),
        ("**4**", 4),
        ("I'd say 3.", 3),
        ('{"score": 4}', 4),
        ('```json\n{"Score": "2"}\n```', 2),
        ("The answer is 5", 5),
        ("4/5", 4),
        ("3 out of 5", 3),
        ("Rating: 2.0", 2),
        ("On a scale (1, 2, 3, 4 or 5) I pick 1", 1),
        ("Between 1-5, my rating is 4.", 4),
    ],
)
def test_it_reads_the_score_from_free_text(answer, score):
    assert parse_score(answer) == score


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ("junk", "no score"),
        ("", "empty"),
        ("7", "no score"),
        ("3.5", "no score"),
        ("between 3 and 4", "several scores"),
        ('{"score": 9}', "not a score"),
        ('{"score": true}', "not a score"),
    ],
)
def test_it_raises_a_clear_error_for_answers_without_one_score(answer, reason):
    with pytest.raises(ParseError, match=reason) as error:
        parse_score(answer)
    assert error.value.text == answer


def test_expected_value_adds_tokens_of_the_same_digit_and_renormalises():
    top = [
        {"token": "4", "logprob": math.log(0.5)},
        {"token": " 4", "logprob": math.log(0.1)},
        {"token": "2", "logprob": math.log(0.2)},
        {"token": "Sure", "logprob": math.log(0.2)},
    ]
    score, dist = expected_from_top_logprobs(top)
    assert dist == pytest.approx([0, 0.25, 0, 0.75, 0])
    assert score == pytest.approx(2 * 0.25 + 4 * 0.75)


def test_expected_value_is_taken_at_the_first_digit_token_of_the_answer():
    logprobs = {
        "content": [
            {"token": "**", "logprob": 0.0, "top_logprobs": [{"token": "**", "logprob": 0.0}]},
            {
                "token": "5",
                "logprob": math.log(0.9),
                "top_logprobs": [
                    {"token": "5", "logprob": math.log(0.9)},
                    {"token": "1", "logprob": math.log(0.1)},
                ],
            },
        ]
    }
    score, dist = expected_from_logprobs(logprobs)
    assert score == pytest.approx(4.6)
    assert sum(dist) == pytest.approx(1)


def test_expected_value_is_none_without_a_digit_token():
    assert expected_from_logprobs(None) is None
    assert expected_from_logprobs({"content": [{"token": "Hi", "top_logprobs": []}]}) is None
    with pytest.raises(ParseError, match="no probability mass"):
        expected_from_top_logprobs([{"token": "x", "logprob": -0.1}])


def test_softmax_expected_of_equal_logits_is_three():
    score, dist = softmax_expected([2.0] * 5)
    assert score == pytest.approx(3.0) and dist == pytest.approx([0.2] * 5)
    score, _ = softmax_expected([-1e9, -1e9, -1e9, -1e9, 0.0])
    assert score == pytest.approx(5.0)


def test_comparative_answers_are_read_from_json_or_text():
    assert parse_comparative('Sure! {"A": 4, "B": 2}') == {"A": 4.0, "B": 2.0}
    assert parse_comparative('{"a": "5", "b": 1}') == {"A": 5.0, "B": 1.0}
    assert parse_comparative("A: 3\nB: 3") == {"A": 3.0, "B": 3.0}
    for bad in ('{"A": 4}', '{"A": 6, "B": 1}', "A or B?", ""):
        with pytest.raises(ParseError):
            parse_comparative(bad)


@pytest.mark.parametrize(
    "answer",
    [
        "Score: 3.5",  # a half score: "3.5" alone is refused, so is it after a key
        "Rating: 2.5/5",
        "Score: 3-4",
        "Score: 3 – 4",
        "Rating: 3 to 4",
        "Answer: 3 or 4",
        "Plausibility: 2 and 3",
    ],
)
def test_a_keyed_range_or_fraction_is_not_read_as_its_first_digit(answer):
    with pytest.raises(ParseError):
        parse_score(answer)


def test_a_keyed_score_is_still_read_beside_the_scale_and_a_later_number():
    assert parse_score("Score: 4/5") == 4
    assert parse_score("Score: 4 out of 5. Confidence: 2") == 4
    assert parse_score("Rating: 2.0") == 2
    assert parse_score("Score: 4.") == 4


@pytest.mark.parametrize("answer", ["A: 3-4\nB: 2", "A: 3.5, B: 2", "A: 4, B: 1 or 2"])
def test_a_comparative_range_or_fraction_is_not_read_as_its_first_digit(answer):
    with pytest.raises(ParseError, match="no single score"):
        parse_comparative(answer)
