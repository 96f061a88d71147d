"""What studies' own task kinds show besides a sample's texts (``kind_pages`` details):
the word to mark (relatedness, sense choice) and the candidate senses (sense choice)."""

from __future__ import annotations

from annotations.models import SenseCandidate, SentencePair
from annotations.sensechoice import TARGET

from .selectors import Choice, Item


def relatedness_details(items: list[Item]) -> None:
    """Relatedness: the word to mark in both sentences (a check item marks its homonym)."""
    ids = [item.sample_id for item in items if item.sample_id is not None]
    pairs = SentencePair.objects.filter(sample_id__in=ids)
    targets = dict(pairs.values_list("sample_id", "target"))
    for item in items:
        item.target = targets.get(item.sample_id, item.homonym) if item.sample_id else item.homonym


def sense_choice_details(items: list[Item]) -> None:
    """Sense choice: the marked word and the candidate senses; a check item offers its
    meaning (0) and its other meaning (1)."""
    ids = [item.sample_id for item in items if item.sample_id is not None]
    choices: dict[int, list[Choice]] = {}
    for c in SenseCandidate.objects.filter(sample_id__in=ids).order_by("sample_id", "index"):
        choice = Choice(c.index, c.gloss, tuple(c.synonyms), tuple(c.examples))
        choices.setdefault(c.sample_id, []).append(choice)
    for item in items:
        marked = TARGET.search(item.sentence)
        item.target = marked.group(1) if marked else item.homonym
        own = choices.get(item.sample_id, []) if item.sample_id else []
        item.choices = own if item.sample_id else _check_choices(item)


def _check_choices(item: Item) -> list[Choice]:
    other = [Choice(1, item.other_meaning)] if item.other_meaning else []
    return [Choice(0, item.meaning), *other]
