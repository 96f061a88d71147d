"""writing/review.py's reviews: the current review again (a double click, a resubmitted
form) records nothing; another decision is a new one, logged."""

from __future__ import annotations

import pytest

from studies.models import Study
from tests.writing.helpers import SENTENCES, make_pool, open_writing_study, qualified_writer
from writing import review, services
from writing.models import ReviewDecision, Sentence

pytestmark = pytest.mark.django_db


def _sentence() -> Sentence:
    make_pool()
    writer = qualified_writer(open_writing_study(Study.Activity.SENTENCES, slug="w", per=1), 1)
    draw = services.draw_current(participant=writer)
    text = SENTENCES[draw.pair.homonym.form]
    return services.sentence_submit(participant=writer, draw_id=draw.pk, text=text)


def _log(sentence: Sentence) -> list[tuple[str, str, str]]:
    rows = ReviewDecision.objects.filter(sentence=sentence).order_by("id")
    return list(rows.values_list("decision", "text_after", "reason"))


def test_a_second_identical_accept_records_nothing_and_returns_the_same_sentence(researcher):
    sentence = _sentence()
    first = review.sentence_review(sentence=sentence, decision="accepted", by=researcher)
    again = review.sentence_review(sentence=sentence, decision="accepted", by=researcher)
    assert _log(sentence) == [("accepted", sentence.text, "")]
    assert (again.pk, again.decision, again.final_text) == (first.pk, "accepted", sentence.text)
    assert again.reviewed_at == first.reviewed_at  # the first decision's, not touched


def test_an_accept_with_the_same_edit_or_a_reject_with_the_same_reason_is_logged_once(
    researcher,
):
    sentence = _sentence()
    edit = f"In the end, the {sentence.pair.homonym.form} was fine."
    for _ in range(2):
        review.sentence_review(
            sentence=sentence, decision="accepted", edited_text=f" {edit} ", by=researcher
        )
    for _ in range(2):
        review.sentence_review(
            sentence=sentence, decision="rejected", reason="not ambiguous", by=researcher
        )
    assert _log(sentence) == [
        ("accepted", edit, ""),
        ("rejected", sentence.text, "not ambiguous"),
    ]


def test_a_different_second_decision_is_a_new_decision_and_logged(researcher):
    """The rule before: a reviewer may change a decision until the sentence is a setup."""
    sentence = _sentence()
    review.sentence_review(sentence=sentence, decision="accepted", by=researcher)
    review.sentence_review(sentence=sentence, decision="rejected", reason="dull", by=researcher)
    review.sentence_review(sentence=sentence, decision="rejected", reason="flat", by=researcher)
    review.sentence_review(sentence=sentence, decision="accepted", by=researcher)
    assert [d for d, _, _ in _log(sentence)] == ["accepted", "rejected", "rejected", "accepted"]
    assert Sentence.objects.get(pk=sentence.pk).decision == "accepted"
