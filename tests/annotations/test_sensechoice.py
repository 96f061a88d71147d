"""Import of sense-choice items (annotations/sensechoice.py): later files into a stored split."""

from __future__ import annotations

import copy

import pytest

from annotations.models import Sample, SenseCandidate, Setup
from annotations.sensechoice import (
    SenseChoiceFormatError,
    parse_sense_choice,
    sense_choice_import,
)

pytestmark = pytest.mark.django_db
SENSES = {
    "bank": [
        {"key": "river", "gloss": "land by a river"},
        {"key": "money", "gloss": "an institution"},
    ]
}


def _doc(ids, **extra) -> dict:
    items = [
        {"id": i, "lemma": "bank", "context": f"Item {i} at the <t>bank</t>.", "gold": "river"}
        for i in ids
    ]
    return {"format": "ambisite-sense-choice-v1", "dataset": "sc", "title": "t", "split": "test",
            "senses": SENSES, "items": items, **extra}  # fmt: skip


def _positions() -> dict[str, int]:
    rows = Sample.objects.filter(split__dataset__name="sc", split__name="test")
    return dict(rows.order_by("position", "id").values_list("dataset_id", "position"))


def test_a_second_file_into_the_same_split_is_numbered_after_the_first():
    sense_choice_import(data=parse_sense_choice(_doc(["n1", "n2", "n3"])))  # e.g. the nouns
    stored = _positions()
    report = sense_choice_import(data=parse_sense_choice(_doc(["v1", "v2"])))  # then the verbs
    assert report.items_created == 2
    positions = _positions()
    assert {k: positions[k] for k in stored} == stored
    assert len(set(positions.values())) == 5  # no two items share a position
    assert list(positions) == ["n1", "n2", "n3", "v1", "v2"]


def _counts() -> tuple[int, ...]:
    return Sample.objects.count(), SenseCandidate.objects.count(), Setup.objects.count()


def _gold(doc):
    doc["items"][1]["gold"] = "money"


def _candidates(doc):  # the inventory changed: every item of the lemma (n1 first)
    doc["senses"] = copy.deepcopy(SENSES)
    doc["senses"]["bank"][1]["gloss"] = "a money lender"


def _context(doc):
    doc["items"][1]["context"] = "Item n2 by the <t>bank</t>."


def _set(doc):
    doc["items"][1]["set"] = "verbs"


@pytest.mark.parametrize(
    "change,item,field",
    [(_gold, "n2", "gold"), (_candidates, "n1", "candidates"), (_context, "n2", "context"),
     (_set, "n2", "set")],
)  # fmt: skip
def test_a_later_file_that_changes_a_stored_item_is_refused_naming_it_and_the_field(
    change, item, field
):
    sense_choice_import(data=parse_sense_choice(_doc(["n1", "n2"])))
    before = _counts()
    doc = _doc(["n1", "n2", "n3"])  # a new item beside the changed one: not written either
    change(doc)
    with pytest.raises(SenseChoiceFormatError, match=f"item {item}: field '{field}'"):
        sense_choice_import(data=parse_sense_choice(doc))
    assert _counts() == before


def test_the_same_file_again_writes_nothing_and_a_larger_one_adds_its_new_items():
    sense_choice_import(data=parse_sense_choice(_doc(["n1", "n2"])))
    before = _counts()
    assert sense_choice_import(data=parse_sense_choice(_doc(["n1", "n2"]))).items_created == 0
    assert _counts() == before
    assert sense_choice_import(data=parse_sense_choice(_doc(["n1", "n2", "n3"]))).items_created == 1


@pytest.mark.parametrize("field,limit", [("title", 200), ("source", 300), ("licence", 200)])
def test_a_title_source_or_licence_over_its_column_is_refused_not_cut(field, limit):
    with pytest.raises(
        SenseChoiceFormatError, match=f"field '{field}' is {limit + 1} characters long"
    ):
        parse_sense_choice(_doc(["n1"], **{field: "x" * (limit + 1)}))
    assert not Sample.objects.exists()
