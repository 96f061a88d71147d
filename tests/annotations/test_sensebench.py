"""sensebench items (tests/annotations/sensebench/, written to the lexEN item format) imported
as sense-choice items: the 5-before / 1-after context window with the target marked, the
candidates of the lemma's part of speech from the inventory, the gold sense key, the part of
speech as the item's set; bad input named by line and field; re-import creates nothing."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from annotations.models import Sample
from annotations.sensebench import convert_item, detokenize, load_sensebench, sensebench_document
from annotations.sensechoice import SenseChoiceFormatError, parse_sense_choice, sense_choice_import

HERE = Path(__file__).parent / "sensebench"
ITEMS, SENSES = HERE / "items.jsonl", HERE / "senses.json"


def _data():
    return load_sensebench(ITEMS, SENSES, dataset="sb-sample", title="t", split="test")


def test_the_window_is_five_sentences_before_and_one_after_with_the_target_marked():
    art = next(i for i in _data().items if i.lemma == "art")
    assert art.context == (
        "One. Two. Three. Four. Five, said she. The <t>art</t> of change-ringing is peculiar to "
        "the English. It is a noisy hobby."
    )
    assert "zero" not in art.context and "Eight" not in art.context


def test_candidates_are_the_lemmas_senses_of_its_part_of_speech_and_gold_is_a_key():
    by_lemma = {i.lemma: i for i in _data().items}
    run = by_lemma["run"]
    assert [c.key for c in run.candidates] == ["run%2:38:00::", "run%2:41:00::"]  # no noun
    assert run.candidates[run.gold].key == "run%2:41:00::"
    assert run.candidates[1].synonyms == ("operate", "manage")
    assert run.item_set == "VERB" and by_lemma["art"].item_set == "NOUN"
    peculiar = by_lemma["peculiar"]  # satellite adjectives (%5) count as ADJ
    assert peculiar.candidates[peculiar.gold].key == "peculiar%5:00:00:characteristic:00"
    assert peculiar.context.startswith("The art of change-ringing is <t>peculiar</t> to the")
    assert "(so they say)." in peculiar.context
    assert len(by_lemma["art"].candidates) == 3


def test_detokenize_joins_punctuation_and_clitics():
    assert detokenize("She does n't , ( really ) .".split()) == "She doesn't, (really)."


def _item(**changes) -> dict:
    raw = json.loads(ITEMS.read_text().splitlines()[0])
    return {**raw, **changes}


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"pos": "NOUNS"}, "line 3 .*pos 'NOUNS'"),
        ({"target_text": "craft"}, "line 3 .*not target_text 'craft'"),
        ({"sentence_index": 12}, "line 3 .*sentence_index 12"),
        ({"gold_sense_keys": ["art%1:99:00::"]}, "line 3 .*no gold sense key"),
    ],
)
def test_a_bad_item_is_refused_naming_its_line_and_field(changes, message):
    senses = json.loads(SENSES.read_text())
    with pytest.raises(SenseChoiceFormatError, match=message):
        convert_item(_item(**changes), senses, 3)
    broken = {k: v for k, v in _item().items() if k != "lemma"}
    with pytest.raises(SenseChoiceFormatError, match="line 3 .*missing field lemma"):
        convert_item(broken, senses, 3)


@pytest.mark.django_db
def test_the_command_imports_them_all_once():
    out = StringIO()
    args = [str(ITEMS), "--sensebench-senses", str(SENSES), "--dataset", "sb-sample"]
    call_command("import_sense_choice", *args, stdout=out)
    assert "3 items (3 new)" in out.getvalue() and "ADJ: 1, NOUN: 1, VERB: 1" in out.getvalue()
    call_command("import_sense_choice", *args, stdout=out)
    assert "3 items (0 new)" in out.getvalue()
    assert Sample.objects.filter(split__dataset__name="sb-sample").count() == 3
    assert sense_choice_import(data=_data()).items_created == 0


def test_a_file_with_a_bom_and_crlf_reads_like_the_plain_one(tmp_path):
    items = tmp_path / "items.jsonl"
    items.write_bytes(b"\xef\xbb\xbf" + ITEMS.read_bytes().replace(b"\n", b"\r\n") + b"\r\n\r\n")
    data = load_sensebench(items, SENSES, dataset="sb-sample", title="t", split="test")
    assert data.items == _data().items


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b'{"item_id": "x\xff"}', "line 2 is not UTF-8"),
        (b'{"item_id": "a", "item_id": "b"}', "line 2: key 'item_id' appears twice"),
        (b'{"item_id": NaN}', "line 2: NaN is not a number"),
    ],
)
def test_a_line_breaking_the_input_rules_is_refused_naming_it(tmp_path, line, message):
    items = tmp_path / "items.jsonl"
    first, *_ = ITEMS.read_bytes().split(b"\n")
    items.write_bytes(first + b"\n" + line + b"\n")
    with pytest.raises(SenseChoiceFormatError, match=message):
        load_sensebench(items, SENSES, dataset="sb-sample", title="t", split="test")


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"sentences": 5}, "line 3 .*sentences must be a list of sentences"),
        (
            {"sentences": [["The", "art", 2]], "sentence_index": 0},
            "line 3 .*sentences must be a list of sentences",
        ),
        ({"pos": ["NOUN"]}, "line 3 .*pos .* is not one of"),
        ({"gold_sense_keys": 5}, "line 3 .*gold_sense_keys must be a list of sense keys"),
    ],
)
def test_a_field_of_the_wrong_type_is_refused_naming_it(changes, message):
    senses = json.loads(SENSES.read_text())
    with pytest.raises(SenseChoiceFormatError, match=message):
        convert_item(_item(**changes), senses, 3)


def test_an_inventory_sense_whose_synonyms_are_not_a_list_is_refused():
    senses = json.loads(SENSES.read_text())
    senses["art%1:09:00::"]["synonyms"] = "craft"  # not ["c", "r", "a", "f", "t"]
    with pytest.raises(SenseChoiceFormatError, match="synonyms: expected a list of strings"):
        parse_sense_choice(sensebench_document([json.dumps(_item())], senses, dataset="d",
                                               title="t", split="test"))  # fmt: skip
