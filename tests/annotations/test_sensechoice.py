"""Import of sense-choice items (annotations/sensechoice.py): later files into a stored split."""

from __future__ import annotations

import pytest

from annotations.models import Sample
from annotations.sensechoice import parse_sense_choice, sense_choice_import

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
