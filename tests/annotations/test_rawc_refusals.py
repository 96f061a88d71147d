"""RAW-C import of small files cut from data/rawc/: what a later or broken file may not do
(change a stored pair or judgment, hold no rows, hold a dominance row twice, ...), refused
naming the file, line, pair or field, with nothing written."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from annotations.models import Rating, Sample, SentencePair, Setup
from annotations.rawc import (
    DOMINANCE_FILE,
    JUDGMENTS_FILE,
    PAIRS_FILE,
    RawcFormatError,
    load_rawc,
    rawc_import,
)

RAWC = Path(__file__).resolve().parents[2] / "data" / "rawc"
FIRST = 6  # the first pairs of raw-c.csv: the word "act"


def _read(name: str) -> tuple[list[str], list[dict[str, str]]]:
    with (RAWC / name).open(newline="") as handle:
        reader = csv.DictReader(handle)
        return list(reader.fieldnames or ()), list(reader)


def _write(path: Path, columns: list[str], rows: list[dict[str, str]]) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, columns)
        writer.writeheader()
        writer.writerows(rows)


def rawc_folder(folder: Path, edit=None, pairs: int = FIRST) -> Path:
    """The first ``pairs`` pairs of each file and their judgments, written to ``folder``;
    ``edit(name, rows)`` changes a file's rows (a list of dicts) before they are written."""
    folder.mkdir(parents=True, exist_ok=True)
    keys = None
    for name in (PAIRS_FILE, DOMINANCE_FILE, JUDGMENTS_FILE):
        columns, rows = _read(name)
        if keys is None:
            keys = {(r["word"], r["version"]) for r in rows[:pairs]}
        rows = [r for r in rows if (r["word"], r["version"]) in keys]
        if edit is not None:
            edit(name, rows)
        _write(folder / name, columns, rows)
    return folder


def _counts() -> tuple[int, ...]:
    return (
        Sample.objects.count(),
        SentencePair.objects.count(),
        Setup.objects.count(),
        Rating.objects.count(),
    )


@pytest.fixture
def stored(db, tmp_path):
    """The small files imported once; their judgments."""
    data = load_rawc(rawc_folder(tmp_path / "first"))
    rawc_import(data=data)
    return data


def _change(name: str, key: str, column: str, value: str, *, subject: str | None = None):
    def edit(file_name, rows):
        if file_name != name:
            return
        for row in rows:
            if f"{row['word']}:{row['version']}" == key and row.get("subject") in (subject, None):
                row[column] = value
                if subject is not None:
                    return  # the subject's one judgment of the pair

    return edit


def test_the_same_files_again_write_nothing_and_a_new_pair_is_added(stored, tmp_path):
    before = _counts()
    report = rawc_import(data=load_rawc(rawc_folder(tmp_path / "again")))
    assert (report.pairs_created, report.judgments_created) == (0, 0)
    assert _counts() == before
    report = rawc_import(data=load_rawc(rawc_folder(tmp_path / "more", pairs=FIRST + 1)))
    assert report.pairs_created == 1 and report.judgments_created > 0


@pytest.mark.parametrize(
    "column,value",
    [("same", "True"), ("distance_bert", "0.5"), ("sentence2", "It was a tragic act."),
     ("string", "acts"), ("Class", "V")],
)  # fmt: skip
def test_a_changed_pair_is_refused_naming_the_pair_and_the_field(stored, tmp_path, column, value):
    key = stored.pairs[1].key
    before = _counts()
    changed = load_rawc(rawc_folder(tmp_path / "changed", _change(PAIRS_FILE, key, column, value)))
    with pytest.raises(RawcFormatError, match=f"pair {key}: field '{column}'"):
        rawc_import(data=changed)
    assert _counts() == before


def test_a_changed_dominance_is_refused(stored, tmp_path):
    key = stored.pairs[0].key
    edit = _change(DOMINANCE_FILE, key, "dominance_sentence2", "2.5")
    with pytest.raises(RawcFormatError, match=f"pair {key}: field 'dominance_sentence2'"):
        rawc_import(data=load_rawc(rawc_folder(tmp_path / "changed", edit)))


def test_a_corrected_score_is_refused_and_the_new_pair_beside_it_not_written(stored, tmp_path):
    first = stored.judgments[0]
    score = str((first.score + 1) % 5)
    edit = _change(JUDGMENTS_FILE, first.key, "relatedness", score, subject=first.subject)
    changed = load_rawc(rawc_folder(tmp_path / "changed", edit, pairs=FIRST + 1))
    assert len(changed.pairs) == len(stored.pairs) + 1
    before = _counts()
    with pytest.raises(
        RawcFormatError, match=f"pair {first.key}, subject {first.subject}: field 'relatedness'"
    ):
        rawc_import(data=changed)
    assert _counts() == before


@pytest.mark.parametrize(
    "emptied,name,what",
    [((PAIRS_FILE, JUDGMENTS_FILE), PAIRS_FILE, "pairs"), ((JUDGMENTS_FILE,), JUDGMENTS_FILE,
     "judgments")],
)  # fmt: skip
def test_a_file_with_only_its_header_is_refused_naming_it(db, tmp_path, emptied, name, what):
    def edit(file_name, rows):
        if file_name in emptied:
            rows.clear()

    with pytest.raises(RawcFormatError, match=f"{name}: no {what}"):
        load_rawc(rawc_folder(tmp_path, edit))


def _twice(dominance: str | None):
    """The dominance file with its first row again at the end (with ``dominance``)."""

    def edit(file_name, rows):
        if file_name == DOMINANCE_FILE:
            again = dict(rows[0])
            if dominance is not None:
                again["dominance_sentence2"] = dominance
            rows.append(again)

    return edit


def test_a_pair_twice_in_the_dominance_file_is_refused_naming_the_lines(db, tmp_path):
    with pytest.raises(
        RawcFormatError,
        match=rf"{DOMINANCE_FILE} line {FIRST + 2}: word 'act' version 'M1_a_M2_a' appears "
        r"twice \(also line 2\)",
    ):
        load_rawc(rawc_folder(tmp_path, _twice("2.5")))


def test_a_repeated_row_of_the_dominance_file_changes_nothing(tmp_path):
    once = load_rawc(rawc_folder(tmp_path / "once"))
    assert load_rawc(rawc_folder(tmp_path / "twice", _twice(None))) == once


def test_a_word_holding_the_keys_separator_is_refused_naming_the_line(db, tmp_path):
    # act + M1_a_M2_b as "act:M1" + "a_M2_b" in every file: the key act:M1:a_M2_b would be
    # the key of act + M1:a_M2_b too
    def edit(file_name, rows):
        for row in rows:
            if (row["word"], row["version"]) == ("act", "M1_a_M2_b"):
                row["word"], row["version"] = "act:M1", "a_M2_b"

    with pytest.raises(RawcFormatError, match=f"{PAIRS_FILE} line 3: word 'act:M1' holds ':'"):
        load_rawc(rawc_folder(tmp_path, edit))
