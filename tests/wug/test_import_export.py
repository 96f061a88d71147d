"""import_wug / export_wug on the repository's copy of the WUG test data (data/wug)."""

import shutil
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from wug.analysis import word_summary
from wug.models import Judgment, Use, Word

ROOT = Path(__file__).resolve().parents[2]
WUG = ROOT / "data" / "wug"
COUNTS = {
    "Aufkommen": (50, 430),
    "Manschette": (178, 693),
    "acerbus": (60, 180),
    "chairman_nn": (200, 482),
    "plane_nn": (200, 1153),
}


def run(*args) -> str:
    from io import StringIO

    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_import_reads_all_five_words_prints_counts_and_is_idempotent():
    out = run("import_wug", str(WUG))
    for name, (uses, judgments) in COUNTS.items():
        assert f"{name}: {uses} uses, {judgments} judgments (created)" in out
        word = Word.objects.get(name=name)
        assert word.uses.count() == uses and word.judgments.count() == judgments
    assert Word.objects.get(name="acerbus").graph_type == "usg"
    again = run("import_wug", str(WUG))
    assert "5 words, 0 new or replaced" in again
    assert Judgment.objects.count() == sum(j for _, j in COUNTS.values())


@pytest.mark.django_db
def test_export_gives_back_the_same_bytes_and_reimports_to_the_same_rows(tmp_path):
    run("import_wug", str(WUG))
    before = list(Judgment.objects.values_list("use1__identifier", "annotator", "score"))
    run("export_wug", str(tmp_path))
    for source in WUG.rglob("*.csv"):
        assert (tmp_path / source.relative_to(WUG)).read_bytes() == source.read_bytes(), source
    Word.objects.all().delete()
    run("import_wug", str(tmp_path))
    after = list(Judgment.objects.values_list("use1__identifier", "annotator", "score"))
    assert after == before


def copy_word(tmp_path, name="Aufkommen") -> Path:
    target = tmp_path / "in" / name
    shutil.copytree(WUG / "uug" / name, target)
    return target


def edit(path: Path, line: int, column: str, value: str) -> None:
    lines = path.read_text(encoding="utf-8").split("\n")
    header = lines[0].rstrip("\r").split("\t")
    cells = lines[line - 1].split("\t")
    index = header.index(column)
    ending = "\r" if cells[-1].endswith("\r") and index == len(cells) - 1 else ""
    cells[index] = value + ending
    lines[line - 1] = "\t".join(cells)
    path.write_text("\n".join(lines), encoding="utf-8")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("file", "column", "value", "message"),
    [
        ("judgments.csv", "identifier2", "nosuchuse", "judgments.csv:3: identifier2: unknown use"),
        ("judgments.csv", "judgment", "5", "judgments.csv:3: judgment: '5' is outside 0-4"),
        ("judgments.csv", "judgment", "nan", "judgments.csv:3: judgment: 'nan' is outside"),
        ("uses.csv", "indexes_target_token", "0:99999", "uses.csv:3: indexes_target_token:"),
        ("uses.csv", "indexes_target_token", "7", "uses.csv:3: indexes_target_token: '7' is not"),
        ("judgments.csv", "annotator", "a" * 201, "judgments.csv:3: annotator: is 201 char"),
        ("uses.csv", "grouping", "1" * 101, "uses.csv:3: grouping: is 101 characters long"),
        ("uses.csv", "date", "2" * 101, "uses.csv:3: date: is 101 characters long, over"),
    ],
)
def test_a_bad_row_is_refused_naming_file_line_and_field_and_nothing_is_written(
    tmp_path, file, column, value, message
):
    shutil.copytree(WUG / "uug" / "Manschette", tmp_path / "in" / "Manschette")
    edit(copy_word(tmp_path) / file, 3, column, value)
    with pytest.raises(CommandError, match=message.replace("(", r"\(")) as caught:
        run("import_wug", str(tmp_path / "in"))
    assert "nothing was imported" in str(caught.value)
    assert Word.objects.count() == 0 and Use.objects.count() == 0


@pytest.mark.django_db
def test_other_files_for_an_imported_word_are_refused_unless_replaced(tmp_path):
    folder = copy_word(tmp_path)
    run("import_wug", str(folder))
    edit(folder / "judgments.csv", 2, "judgment", "4.0")
    with pytest.raises(CommandError, match="Aufkommen: already imported with other files"):
        run("import_wug", str(folder))
    assert "(replaced)" in run("import_wug", str(folder), "--replace")
    assert Judgment.objects.get(word__name="Aufkommen", position=0).score == 4.0


@pytest.mark.django_db
def test_not_utf8_and_nul_are_refused_with_the_line(tmp_path):
    folder = copy_word(tmp_path)
    data = (folder / "uses.csv").read_bytes().split(b"\n")
    data[4] = data[4] + b"\xff"
    (folder / "uses.csv").write_bytes(b"\n".join(data))
    with pytest.raises(CommandError, match=r"uses.csv:5: the file is not UTF-8"):
        run("import_wug", str(folder))
    folder = copy_word(tmp_path, "Manschette")
    (folder / "judgments.csv").write_bytes(b"identifier1\tidentifier2\x00\n")
    with pytest.raises(CommandError, match=r"judgments.csv:1: the file holds a NUL"):
        run("import_wug", str(folder))


@pytest.mark.django_db
def test_the_summary_of_plane_reports_clusters_change_and_agreement():
    run("import_wug", str(WUG / "uug" / "plane_nn"))
    summary = word_summary(Word.objects.get(name="plane_nn"))
    assert summary.uses == 200 and summary.judgments == 1153 and summary.annotators == 9
    assert summary.groupings == ("1", "2")
    assert summary.clusters >= 2 and summary.loss is not None and summary.loss > 0
    assert 0 < summary.change_graded <= 1
    assert summary.agreement is not None and summary.agreement.annotator_pairs > 0
    # the clustering is kept and reused while the judgments stay the same
    first = summary.word.clusterings.get()
    word_summary(summary.word)
    assert summary.word.clusterings.get().computed_at == first.computed_at


def add_blank_lines(path: Path, after: int, count: int = 1) -> None:
    """``count`` blank lines after file line ``after`` (0: before the header), in the file's
    own line ending."""
    text = path.read_text(encoding="utf-8")
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.split(newline)
    lines[after:after] = [""] * count
    path.write_text(newline.join(lines), encoding="utf-8")


@pytest.mark.django_db
def test_blank_lines_are_skipped_and_later_errors_keep_the_files_line_numbers(tmp_path):
    folder = copy_word(tmp_path)
    add_blank_lines(folder / "judgments.csv", 431, 3)  # after the last row: 3 more blank lines
    add_blank_lines(folder / "uses.csv", 3, 2)  # between rows
    assert "50 uses, 430 judgments" in run("import_wug", str(folder))
    folder = copy_word(tmp_path, "Manschette")
    add_blank_lines(folder / "judgments.csv", 2, 2)  # the row of file line 3 is now line 5
    edit(folder / "judgments.csv", 5, "judgment", "5")
    with pytest.raises(CommandError, match="judgments.csv:5: judgment: '5' is outside 0-4"):
        run("import_wug", str(folder))
