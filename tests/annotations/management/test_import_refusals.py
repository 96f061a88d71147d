"""Hostile files given to the three import commands, run as from the command line: each is
refused with one line naming the file and the line, field or key, the exit code is not zero,
and nothing is written (never a traceback)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import ManagementUtility
from django.db import connections

from annotations.models import Dataset, Homonym, Rater, Sample

pytestmark = pytest.mark.django_db

LONG_WORD = "w" * 200_000


def run(argv: list[str], capsys, monkeypatch) -> tuple[int, str]:
    """Exit code and stderr of ``manage.py argv``; the command line closes every connection
    when it ends, which would drop the test database, so that step is left out."""
    monkeypatch.setattr(connections, "close_all", lambda: None)
    try:
        ManagementUtility(["manage.py", *argv]).execute()
        code = 0
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    return code, capsys.readouterr().err


def assert_refused(code: int, err: str, *expected: str) -> None:
    assert code != 0
    lines = err.strip().splitlines()  # a progress note ("import: read 1 samples") may precede
    errors = [line for line in lines if line.startswith("CommandError: ")]
    assert errors == lines[-1:] and "Traceback" not in err, err[:2000]
    assert len(errors[0]) < 400  # a 200,000-character value is not echoed back
    for text in expected:
        assert text in errors[0]
    assert not Homonym.objects.exists() and not Sample.objects.exists()
    assert not Dataset.objects.exists() and not Rater.objects.exists()


# AmbiStory ---------------------------------------------------------------------------------


def sample(**fields) -> dict:
    base = {
        "homonym": "bank",
        "judged_meaning": "land beside a river",
        "precontext": "They walked.",
        "sentence": "They sat by the bank.",
        "ending": "",
        "choices": [4, 5],
        "average": 4.5,
        "stdev": 0.7071067811865476,
        "nonsensical": [False, False],
        "sample_id": "0",
        "example_sentence": "",
    }
    return base | fields


def ambistory_text(**fields) -> str:
    return json.dumps({"0": sample(**fields)})


AMBISTORY_CASES = {
    "non-utf8": (b'{"0": "\xff\xfe"}', "not UTF-8"),
    "deep-nesting": (b"[" * 100_000 + b"]" * 100_000, "nested deeper"),
    "huge-number": (ambistory_text(average=1).replace('"average": 1', '"average": 1e400'), "range"),
    "huge-integer": (
        ambistory_text(choices=[4, 5]).replace("[4, 5]", "[4, " + "9" * 400 + "]"),
        "digits",
    ),
    "nul-escape": (ambistory_text(precontext="a\x00b"), "NUL"),
    "nul-byte": (ambistory_text().encode().replace(b"walked", b"wal\x00ked"), "NUL"),
    "long-homonym": (ambistory_text(homonym=LONG_WORD), "field 'homonym' is 200000 characters"),
    "long-sample-id": (ambistory_text(sample_id="9" * 40), "field 'sample_id' is 40 characters"),
    "long-id": (json.dumps({"7" * 50: sample()}), "sample id is 50 characters"),
    "duplicate-key": (
        ambistory_text().replace('"ending": ""', '"ending": "", "ending": "x"'),
        "'ending' appears twice",
    ),
    "nan": (ambistory_text().replace("4.5", "NaN"), "NaN"),
}


@pytest.mark.parametrize("case", AMBISTORY_CASES, ids=list(AMBISTORY_CASES))
def test_import_ambistory_refuses_each_hostile_file_in_one_line(
    case, tmp_path, capsys, monkeypatch
):
    content, expected = AMBISTORY_CASES[case]
    path = tmp_path / "bad.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    code, err = run(["import_ambistory", str(path), "--split", "dev"], capsys, monkeypatch)
    assert_refused(code, err, str(path), expected, "nothing was imported")


@pytest.mark.parametrize(
    ("option", "value", "expected"),
    [
        ("--split", "x" * 100, "over the limit of 64"),
        ("--dataset", "not a slug", "is not a slug"),
    ],
)
def test_import_ambistory_refuses_a_split_or_dataset_name_that_cannot_be_stored(
    option, value, expected, tmp_path, capsys, monkeypatch
):
    path = tmp_path / "ok.json"
    path.write_text(ambistory_text())
    argv = ["import_ambistory", str(path), "--split", "dev", option, value]
    code, err = run(argv, capsys, monkeypatch)
    assert_refused(code, err, expected)


def test_import_ambistory_still_imports_the_good_file(tmp_path, capsys, monkeypatch):
    path = tmp_path / "ok.json"
    path.write_text(ambistory_text())
    code, _ = run(["import_ambistory", str(path), "--split", "dev"], capsys, monkeypatch)
    assert code == 0 and Sample.objects.count() == 1


# Sense choice ------------------------------------------------------------------------------


def sense_choice(**fields) -> dict:
    doc = {
        "format": "ambisite-sense-choice-v1",
        "dataset": "fool-test",
        "title": "FOOL test",
        "split": "test",
        "senses": {
            "bank": [
                {"key": "bank_money", "gloss": "money"},
                {"key": "bank_river", "gloss": "river"},
            ]
        },
        "items": [{"id": "1", "lemma": "bank", "context": "by the <t>bank</t>", "gold": 1}],
    }
    return doc | fields


def sense_choice_text(**fields) -> str:
    return json.dumps(sense_choice(**fields))


def item(**fields) -> dict:
    return {"id": "1", "lemma": "bank", "context": "by the <t>bank</t>", "gold": 1} | fields


SENSE_CHOICE_CASES = {
    "non-utf8": (b'{"format": "\xc3\x28"}', "not UTF-8"),
    "deep-nesting": (b'{"a": ' * 50_000 + b"1" + b"}" * 50_000, "nested deeper"),
    "huge-number": (
        sense_choice_text(items=[item(gold=1)]).replace('"gold": 1', '"gold": 1e400'),
        "range",
    ),
    "huge-integer": (sense_choice_text().replace('"gold": 1', '"gold": 1' + "0" * 5000), "digits"),
    "nul": (sense_choice_text(items=[item(context="by the <t>bank</t>\x00")]), "NUL"),
    "long-lemma": (
        sense_choice_text(items=[item(lemma=LONG_WORD)]),
        "field 'lemma' is 200000 characters",
    ),
    "long-inventory-lemma": (
        sense_choice_text(senses={LONG_WORD: []}),
        "a lemma is 200000 characters",
    ),
    "long-id": (sense_choice_text(items=[item(id="1" * 40)]), "field 'id' is 40 characters"),
    "long-key": (
        sense_choice_text(
            items=[item(candidates=[{"key": "k" * 101, "gloss": "a"}, {"gloss": "b"}])]
        ),
        "key is 101 characters",
    ),
    "duplicate-key": (
        sense_choice_text().replace('"gold": 1', '"gold": 1, "gold": 0'),
        "'gold' appears twice",
    ),
    "senses-not-an-object": (sense_choice_text(senses=["bank"]), "field 'senses'"),
    "inventory-not-a-list": (sense_choice_text(senses={"bank": 3}), "senses of bank"),
    "items-not-a-list": (sense_choice_text(items={"1": item()}), "field 'items'"),
    "dataset-not-a-slug": (sense_choice_text(dataset="fool test/1"), "field 'dataset'"),
    "item-split-not-a-slug": (sense_choice_text(items=[item(split="a b")]), "field 'split'"),
    "set-not-text": (sense_choice_text(items=[item(set={"a": 1})]), "field 'set'"),
}


@pytest.mark.parametrize("case", SENSE_CHOICE_CASES, ids=list(SENSE_CHOICE_CASES))
def test_import_sense_choice_refuses_each_hostile_file_in_one_line(
    case, tmp_path, capsys, monkeypatch
):
    content, expected = SENSE_CHOICE_CASES[case]
    path = tmp_path / "bad.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    code, err = run(["import_sense_choice", str(path)], capsys, monkeypatch)
    assert_refused(code, err, str(path), expected, "nothing was imported")


def test_import_sense_choice_still_imports_the_good_file(tmp_path, capsys, monkeypatch):
    path = tmp_path / "ok.json"
    path.write_text(sense_choice_text())
    code, _ = run(["import_sense_choice", str(path)], capsys, monkeypatch)
    assert code == 0 and Sample.objects.count() == 1


# RAW-C -------------------------------------------------------------------------------------

PAIRS = (
    "word,sentence1,sentence2,same,ambiguity_type,version,Class,distance_bert,distance_elmo,string\n"
    "act,It was a desperate act.,It was a magic act.,False,Polysemy,M1_a_M2_a,N,0.2,0.03,act\n"
)
DOMINANCE = "word,version,dominance_sentence2\nact,M1_a_M2_a,-0.53\n"
JUDGMENTS = "subject,word,version,relatedness\np1,act,M1_a_M2_a,3\n"


def rawc_folder(tmp_path: Path, **files: str | bytes) -> Path:
    names = {
        "pairs": "raw-c.csv",
        "dominance": "raw-c_with_dominance.csv",
        "judgments": "normed_critical.csv",
    }
    texts = {"pairs": PAIRS, "dominance": DOMINANCE, "judgments": JUDGMENTS} | files
    for key, name in names.items():
        content = texts[key]
        (tmp_path / name).write_bytes(content if isinstance(content, bytes) else content.encode())
    return tmp_path


RAWC_CASES = {
    "non-utf8": (
        {"pairs": PAIRS.encode().replace(b"magic", b"m\xe4gic")},
        "raw-c.csv is not UTF-8",
    ),
    "nul": ({"judgments": JUDGMENTS.replace("p1", "p\x001")}, "normed_critical.csv holds a NUL"),
    "field-over-csv-limit": (
        {"pairs": PAIRS.replace("\nact,", f"\n{LONG_WORD},")},
        "raw-c.csv line 2",
    ),
    "long-word": (
        {"pairs": PAIRS.replace("\nact,", f"\n{'w' * 101},")},
        "line 2: word is 101 characters",
    ),
    "long-version": (
        {"pairs": PAIRS.replace("M1_a_M2_a", "M" * 40)},
        "line 2: version is 40 characters",
    ),
    "long-subject": (
        {"judgments": JUDGMENTS.replace("p1", "p" * 100)},
        "normed_critical.csv line 2: subject",
    ),
    "inf-dominance": (
        {"dominance": DOMINANCE.replace("-0.53", "inf")},
        "dominance_sentence2 is inf",
    ),
    "huge-dominance": (
        {"dominance": DOMINANCE.replace("-0.53", "1e999")},
        "dominance_sentence2 is inf",
    ),
    "nan-distance": ({"pairs": PAIRS.replace("0.2,", "nan,")}, "distance_bert is nan"),
    "word-distance": ({"pairs": PAIRS.replace("0.2,", "far,")}, "distance_bert is 'far'"),
    "huge-relatedness": (
        {"judgments": JUDGMENTS.replace(",3\n", "," + "9" * 5000 + "\n")},
        "relatedness is not a number",
    ),
    "short-row": ({"pairs": PAIRS + "act,only two\n"}, "raw-c.csv line 3"),
}


@pytest.mark.parametrize("case", RAWC_CASES, ids=list(RAWC_CASES))
def test_import_rawc_refuses_each_hostile_file_in_one_line(case, tmp_path, capsys, monkeypatch):
    files, expected = RAWC_CASES[case]
    folder = rawc_folder(tmp_path, **files)
    code, err = run(["import_rawc", str(folder)], capsys, monkeypatch)
    assert_refused(code, err, expected, "nothing was imported")


def test_import_rawc_still_imports_the_good_folder(tmp_path, capsys, monkeypatch):
    code, err = run(["import_rawc", str(rawc_folder(tmp_path))], capsys, monkeypatch)
    assert code == 0, err
    assert Sample.objects.count() == 1 and Rater.objects.count() == 1


@pytest.mark.parametrize(
    "argv",
    [
        ["import_ambistory", "{missing}", "--split", "dev"],
        ["import_ambistory", "{folder}", "--split", "dev"],
        ["import_sense_choice", "{missing}"],
        ["import_rawc", "{missing}"],
    ],
    ids=["ambistory-missing", "ambistory-folder", "sense-choice-missing", "rawc-missing"],
)
def test_a_missing_file_or_folder_is_one_line_too(argv, tmp_path, capsys, monkeypatch):
    paths = {"missing": str(tmp_path / "nowhere.json"), "folder": str(tmp_path)}
    code, err = run([arg.format(**paths) for arg in argv], capsys, monkeypatch)
    assert_refused(code, err, "cannot read")
