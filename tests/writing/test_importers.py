"""The pool file (JSON or TSV) parses to rows or names the entry at fault; the writing
export carries provenance and no Prolific ID."""

from __future__ import annotations

import json

import pytest

from tests.writing.helpers import writing_world
from writing.exporters import iter_writing_json
from writing.importers import PoolFormatError, parse_pool
from writing.services import pool_import


def test_a_json_pool_parses_with_optional_fields():
    rows = parse_pool(json.dumps([{"word": "bank", "meaning_1": "money", "meaning_2": "river"}]))
    assert rows[0].word == "bank" and rows[0].example_1 == "" and rows[0].pos_2 == ""


def test_a_tsv_pool_with_a_bom_parses():
    text = "\ufeffword\tmeaning_1\tmeaning_2\tpos_1\tpos_2\nbat\tanimal\tclub\tnoun\tnoun\n"
    (row,) = parse_pool(text)
    assert (row.word, row.meaning_2, row.pos_1) == ("bat", "club", "noun")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("[{", "not valid JSON"),
        ('[{"word": "bank", "meaning_1": "money"}]', "meaning_2 is empty"),
        ('[{"word": "bank", "meaning_1": "a", "meaning_2": "b", "colour": "x"}]', "unknown"),
        ('[{"word": 3, "meaning_1": "a", "meaning_2": "b"}]', "must be text"),
        ("word\tmeaning_1\nbank\tmoney\n", "lacks meaning_2"),
    ],
)
def test_a_bad_pool_file_names_the_problem(text, message):
    with pytest.raises(PoolFormatError, match=message):
        parse_pool(text)


@pytest.mark.django_db
def test_importing_twice_adds_nothing_the_second_time():
    rows = parse_pool('[{"word": "bank", "meaning_1": "money", "meaning_2": "river"}]')
    assert pool_import(rows=rows) == (1, 0)
    assert pool_import(rows=rows) == (0, 1)


@pytest.mark.django_db
def test_the_writing_export_has_provenance_and_no_prolific_id(researcher):
    writing_world(researcher)
    text = "".join(iter_writing_json())
    data = json.loads(text)
    (sentence,) = data["sentences"]
    assert sentence["decision"] == "accepted" and sentence["setup_id"]
    assert sentence["precontexts"][0]["source"] == "researcher"
    assert sentence["endings"][0]["intended_meaning"]
    assert sentence["writer"].startswith("p-")
    assert f"{901:024x}" not in text and f"{902:024x}" not in text
