"""The submit-time rules on inflections and punctuation (no database)."""

import pytest

from writing.rules import ending_problem, occurrences, sentence_problem


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("I went to the bank.", 1),
        ("Bank holidays are long.", 1),  # capitalised
        ("THE BANK!", 1),
        ("The bank's doors were closed.", 1),  # possessive: the word itself
        ("The bank’s doors were closed.", 1),  # typographic apostrophe
        ("She walked along the river-bank today.", 1),  # hyphen separates words
        ('He said "bank," and left.', 1),  # quotes and comma
        ("(bank)", 1),
        ("Two banks merged.", 0),  # another word form
        ("The embankment was steep.", 0),  # another word
        ("Bankers went home.", 0),
        ("bank bank", 2),
        ("The bank by the Bank.", 2),
        ("", 0),
    ],
)
def test_occurrences_count_the_shown_form_as_a_whole_word(text, count):
    assert occurrences(text, "bank") == count


def test_a_sentence_with_the_word_once_passes():
    assert sentence_problem("On Saturday morning, I went to the Bank.", "bank") is None


def test_a_sentence_using_the_word_twice_is_refused_with_the_count():
    problem = sentence_problem("The bank by the bank's door was wet.", "bank")
    assert problem and "exactly once" in problem and "2 times" in problem


@pytest.mark.parametrize("text", ["Two banks merged today.", "The embankment was steep."])
def test_a_sentence_with_only_an_inflection_or_a_longer_word_lacks_the_word(text):
    assert "must use the word" in sentence_problem(text, "bank")


@pytest.mark.parametrize("text", ["", "   ", "bank", "the bank"])
def test_an_empty_or_too_short_sentence_is_refused(text):
    assert sentence_problem(text, "bank") is not None


def test_an_overlong_sentence_is_refused():
    assert "characters" in sentence_problem("I went to the bank " + "again " * 60, "bank")


def test_an_ending_must_not_contain_the_word_in_any_case_or_as_a_possessive():
    assert ending_problem("They closed early that day.", "bank") is None
    for text in ("The Bank closed early.", "The bank's door shut.", "BANK was shut."):
        assert "must not contain" in ending_problem(text, "bank")


def test_an_ending_may_use_another_word_that_contains_the_form():
    assert ending_problem("They walked along the embankment.", "bank") is None


def test_a_multiword_form_is_matched_as_a_whole():
    assert occurrences("He had a hot dog, then another hot dog.", "hot dog") == 2
