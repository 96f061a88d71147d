"""FOOL items in the CoarseWSD-20 folder layout (tests/vectors/fool/, written to that layout)
imported as sense-choice items: the word marked in the detokenized sentence, the labels as
candidates in class order, train as its own split and set1-4 as test sets; glosses from a
sense inventory; bad input named by file, line and field; all or nothing, re-import creates
nothing."""

from __future__ import annotations

import shutil
from collections import Counter
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotations.fool import fool_document, label_gloss, load_fool, load_glosses
from annotations.models import Sample
from annotations.sensechoice import SenseChoiceFormatError, sense_choice_import

SAMPLE = Path(__file__).resolve().parents[1] / "vectors" / "fool"
INVENTORY = Path(__file__).resolve().parents[2] / "data" / "fool" / "fool-sample.json"


def _data(**kw):
    return load_fool(SAMPLE, dataset="fool-layout", title="t", **kw)


def test_the_sample_gives_each_set_its_items_and_train_its_own_split():
    data = _data()
    assert len(data.items) == 24
    assert Counter((i.split, i.item_set) for i in data.items) == {
        ("train", "train"): 8, ("test", "1"): 4, ("test", "2"): 4, ("test", "3"): 4,
        ("test", "4"): 4,
    }  # fmt: skip
    item = next(i for i in data.items if i.id == "crane-set4-2")
    assert item.context == (
        "birdwatchers complained that the <t>crane</t> blocked their view of the herons."
    )
    assert [c.key for c in item.candidates] == ["crane_bird", "crane_machine"]
    assert item.candidates[item.gold].key == "crane_machine"
    assert [c.gloss for c in item.candidates] == ["bird", "machine"]


def test_glosses_come_from_a_sense_inventory_when_given():
    item = _data(glosses_path=INVENTORY).items[0]
    assert item.candidates[0].key == "crane_bird"
    assert item.candidates[0].gloss == load_glosses(INVENTORY)["crane_bird"]
    assert item.candidates[0].gloss != "bird"


def test_a_label_reads_as_words():
    assert label_gloss("crane", "crane_bird") == "bird"
    assert label_gloss("pitcher", "pitcher_pitcher_(container)") == "pitcher (container)"
    assert label_gloss("apple", "Apple") == "Apple"


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "fool"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns("README.md"))
    return root


@pytest.mark.parametrize(
    ("path", "text", "message"),
    [
        (
            "crane/set3.data.txt",
            "9\tthe crane flew .\n1\tthe crane rose .\n",
            r"crane/set3.data.txt line 1: position '9'",
        ),
        (
            "crane/set3.data.txt",
            "1\tthe heron flew .\n1\tthe crane rose .\n",
            r"line 1: token 1 is 'heron', not 'crane'",
        ),
        (
            "crane/set3.data.txt",
            "the crane flew .\n1\tthe crane rose .\n",
            r"line 1: expected 'position TAB sentence'",
        ),
        ("crane/set3.gold.txt", "0\n7\n", r"crane/set3.gold.txt line 2: class '7' is not in"),
        ("crane/set3.gold.txt", "0\n", r"crane/set3.gold.txt: 1 lines, set3.data.txt has 2"),
        ("seal/classes_map.txt", '{"0": "seal_animal"}', r"seal/classes_map.txt: needs two"),
        ("seal/classes_map.txt", "[1, 2]", r"seal/classes_map.txt: must be"),
    ],
)
def test_bad_input_is_refused_naming_file_line_and_field(tmp_path, path, text, message):
    root = _copy(tmp_path)
    (root / path).write_text(text, encoding="utf-8")
    with pytest.raises(SenseChoiceFormatError, match=message):
        fool_document(root, dataset="d", title="t")


def test_a_data_file_without_its_gold_file_is_refused(tmp_path):
    root = _copy(tmp_path)
    (root / "seal" / "set2.gold.txt").unlink()
    with pytest.raises(SenseChoiceFormatError, match=r"seal/set2.gold.txt: missing"):
        fool_document(root, dataset="d", title="t")


@pytest.mark.django_db
def test_the_command_imports_all_once_and_nothing_from_a_bad_folder(tmp_path):
    out = StringIO()
    args = [str(SAMPLE), "--fool", "--dataset", "fool-layout"]
    call_command("import_sense_choice", *args, stdout=out)
    assert "24 items (24 new)" in out.getvalue()
    call_command("import_sense_choice", *args, stdout=out)
    assert "24 items (0 new)" in out.getvalue()
    assert sense_choice_import(data=_data()).items_created == 0
    assert Sample.objects.filter(split__dataset__name="fool-layout").count() == 24
    assert (
        Sample.objects.filter(split__name="train", split__dataset__name="fool-layout").count() == 8
    )
    root = _copy(tmp_path)
    (root / "seal" / "set4.gold.txt").write_text("0\n5\n", encoding="utf-8")
    with pytest.raises(CommandError, match="seal/set4.gold.txt line 2.*nothing was imported"):
        call_command("import_sense_choice", str(root), "--fool", "--dataset", "fool-bad")
    assert not Sample.objects.filter(split__dataset__name="fool-bad").exists()


def test_the_docs_give_the_shipped_samples_true_counts():
    import json

    sample = json.loads(INVENTORY.read_text())
    items = sample["items"]
    lemmas = sorted({i["lemma"] for i in items})
    counts = (len(sample["senses"]), len(items), len(lemmas))
    assert counts == (18, 60, 5)
    assert sum(1 for i in items if i.get("split") == "train") == 20
    docs = (INVENTORY.parents[2] / "docs" / "task-kinds.md").read_text()
    stated = "**18** homonyms", "**60** sentences", f"**{len(lemmas)}** of those 18 words"
    assert all(s in docs for s in stated)
    assert f"({', '.join(lemmas)})" in docs


@pytest.mark.django_db
def test_a_later_file_with_more_items_adds_only_those_and_reuses_the_texts_already_stored():
    from dataclasses import replace

    from annotations.models import SenseCandidate, Setup, Story

    data = _data()
    first = replace(data, items=data.items[::2])  # every other item, then all of them
    assert sense_choice_import(data=first).items_created == 12
    stored = {s.dataset_id: s.pk for s in Sample.objects.filter(split__dataset=_dataset())}
    assert sense_choice_import(data=data).items_created == 12
    samples = Sample.objects.filter(split__dataset=_dataset())
    assert samples.count() == 24
    assert {s.dataset_id: s.pk for s in samples if s.dataset_id in stored} == stored  # kept
    # one setup and one story per distinct sentence, whichever import brought it
    contexts = {i.context for i in data.items}
    assert Setup.objects.filter(sentence__in=contexts).count() == len(contexts)
    assert Story.objects.filter(setup__sentence__in=contexts).count() == len(contexts)
    for item in data.items:
        sample = samples.get(dataset_id=item.id)
        assert sample.story.setup.sentence == item.context
        assert sample.story.setup.homonym.form == item.lemma
        assert sample.item_set == item.item_set and sample.split.name == item.split
        candidates = SenseCandidate.objects.filter(sample=sample).order_by("index")
        assert [(c.key, c.is_gold) for c in candidates] == [
            (c.key, n == item.gold) for n, c in enumerate(item.candidates)
        ]


def _dataset():
    from annotations.models import Dataset

    return Dataset.objects.get(name="fool-layout")


def test_files_with_a_bom_and_crlf_read_like_the_plain_ones(tmp_path):
    root = _copy(tmp_path)
    for path in root.rglob("*.txt"):
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes().replace(b"\n", b"\r\n"))
    assert fool_document(root, dataset="d", title="t") == fool_document(
        SAMPLE, dataset="d", title="t"
    )


def test_an_error_names_the_files_own_line_past_a_blank_one(tmp_path):
    root = _copy(tmp_path)
    (root / "crane/set3.data.txt").write_text("1\tthe crane rose .\n\n9\tthe crane flew .\n")
    with pytest.raises(SenseChoiceFormatError, match=r"set3.data.txt line 3: position '9'"):
        fool_document(root, dataset="d", title="t")
