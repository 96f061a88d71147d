"""Reading and writing the DURel / WUG tab-separated format. Pure: no Django.

A word is a folder holding ``uses.csv`` and ``judgments.csv`` (usage-usage graph) plus
``senses.csv`` for a usage-sense graph. Files are UTF-8, tab-separated, no quoting, one
header line (blank lines are skipped, anywhere: errors still give the file's own line
numbers); ``identifier`` names a use, ``indexes_target_token`` and
``indexes_target_sentence`` are ``start:end`` character offsets into ``context``; a judgment
is 1-4 (DURel) or 0 "cannot decide". Extra columns are kept as they are, in their order, and
so are the files' line endings, so that writing a word back gives the same bytes.

Every problem is a :class:`WugFormatError` whose message starts ``file:line: field``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from annotations.safe_input import is_blank

USES = "uses.csv"
JUDGMENTS = "judgments.csv"
SENSES = "senses.csv"
USE_REQUIRED = ("lemma", "identifier", "context", "indexes_target_token")
JUDGMENT_REQUIRED = ("identifier1", "identifier2", "annotator", "judgment")
SENSE_REQUIRED = ("identifier_sense", "description_sense")
JUDGMENT_RANGE = (0.0, 4.0)
MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_FIELD_CHARS = 100_000


class WugFormatError(ValueError):
    """A file that breaks the format; the message names the file, line and field."""


@dataclass
class Table:
    """One file: its columns in order, its rows (raw strings by column), its line ending,
    and each row's line in the file (``lines``; none: the header is line 1, no blank line)."""

    path: str
    columns: list[str]
    rows: list[dict[str, str]]
    newline: str = "\n"
    lines: list[int] = field(default_factory=list)

    def line(self, index: int) -> int:
        """The file line of row ``index`` (a row added after reading counts on from the last)."""
        if index < len(self.lines):
            return self.lines[index]
        return (self.lines[-1] if self.lines else 1) + index - len(self.lines) + 1

    def where(self, index: int, column: str) -> str:
        return f"{self.path}:{self.line(index)}: {column}"


@dataclass
class WordFiles:
    """A word folder as read: its tables, checked against each other."""

    name: str
    uses: Table
    judgments: Table
    senses: Table | None = None
    lemma: str = field(default="")

    @property
    def graph_type(self) -> str:
        return "usg" if self.senses is not None else "uug"


def _decode(path: Path) -> str:
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise WugFormatError(f"{path}: the file is larger than {MAX_FILE_BYTES} bytes")
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise WugFormatError(f"{path}:{line}: the file is not UTF-8") from None
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        raise WugFormatError(f"{path}:{line}: the file holds a NUL character")
    return text


def read_table(path: Path, required: tuple[str, ...]) -> Table:
    """One tab-separated file, every row as wide as the header, required columns present."""
    text = _decode(path)
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = [(n, line) for n, line in enumerate(text.split(newline), 1) if not is_blank(line)]
    if not lines:
        raise WugFormatError(f"{path}:1: the file is empty (a header line is needed)")
    head, header = lines[0]
    columns = header.split("\t")
    missing = [c for c in required if c not in columns]
    if missing:
        raise WugFormatError(f"{path}:{head}: missing column(s) {', '.join(missing)}")
    if len(set(columns)) != len(columns):
        raise WugFormatError(f"{path}:{head}: a column name appears twice")
    rows = []
    for number, line in lines[1:]:
        values = line.split("\t")
        if len(values) != len(columns):
            raise WugFormatError(
                f"{path}:{number}: {len(values)} fields where the header has {len(columns)}"
            )
        for column, value in zip(columns, values, strict=True):
            if len(value) > MAX_FIELD_CHARS:
                raise WugFormatError(f"{path}:{number}: {column}: longer than {MAX_FIELD_CHARS}")
        rows.append(dict(zip(columns, values, strict=True)))
    return Table(str(path), columns, rows, newline, [n for n, _ in lines[1:]])


def parse_span(text: str, where: str) -> tuple[int, int]:
    """``start:end`` as two integers with 0 <= start <= end (the WUG data holds a few empty
    target spans, e.g. ``808:808``: nothing is marked for them)."""
    parts = text.strip().split(":")
    if len(parts) != 2 or not all(p.isdigit() and len(p) < 10 for p in parts):
        raise WugFormatError(f"{where}: {text!r} is not start:end")
    start, end = int(parts[0]), int(parts[1])
    if start > end:
        raise WugFormatError(f"{where}: {text!r} ends before it starts")
    return start, end


def parse_judgment(text: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise WugFormatError(f"{where}: {text!r} is not a number") from None
    low, high = JUDGMENT_RANGE
    if not math.isfinite(value) or not low <= value <= high:
        raise WugFormatError(f"{where}: {text!r} is outside 0-4 (0 = cannot decide)")
    return value


def _check_uses(uses: Table) -> str:
    seen: set[str] = set()
    lemmas = set()
    for i, row in enumerate(uses.rows):
        identifier = row["identifier"]
        if not identifier.strip():
            raise WugFormatError(f"{uses.where(i, 'identifier')}: empty")
        if identifier in seen:
            raise WugFormatError(f"{uses.where(i, 'identifier')}: {identifier!r} appears twice")
        seen.add(identifier)
        lemmas.add(row["lemma"])
        length = len(row["context"])
        # The target must lie in the context. A sentence may end one past it: the WUG data's
        # usage-sense sample does so on every use (the span is clamped where it is shown).
        spans = [("indexes_target_token", True, 0), ("indexes_target_sentence", False, 1)]
        for column, required, slack in spans:
            value = row.get(column, "")
            if not required and not value.strip():
                continue
            start, end = parse_span(value, uses.where(i, column))
            if end > length + slack:
                raise WugFormatError(
                    f"{uses.where(i, column)}: {value!r} is outside the context "
                    f"({length} characters)"
                )
    if len(lemmas) > 1:
        raise WugFormatError(f"{uses.path}: several lemmas in one word: {sorted(lemmas)}")
    return lemmas.pop() if lemmas else ""


def _check_judgments(word: WordFiles) -> None:
    uses = {row["identifier"] for row in word.uses.rows}
    seconds = uses if word.senses is None else {r["identifier_sense"] for r in word.senses.rows}
    table = word.judgments
    for i, row in enumerate(table.rows):
        for column, known in (("identifier1", uses), ("identifier2", seconds)):
            if row[column] not in known:
                kind = "use" if known is uses else "sense"
                raise WugFormatError(
                    f"{table.where(i, column)}: unknown {kind} identifier {row[column]!r}"
                )
        parse_judgment(row["judgment"], table.where(i, "judgment"))
        if row.get("round", "").strip() and not row["round"].strip().isdigit():
            raise WugFormatError(f"{table.where(i, 'round')}: {row['round']!r} is not a number")


def _check_senses(senses: Table) -> None:
    seen: set[str] = set()
    for i, row in enumerate(senses.rows):
        identifier = row["identifier_sense"]
        if not identifier.strip() or identifier in seen:
            raise WugFormatError(f"{senses.where(i, 'identifier_sense')}: empty or repeated")
        seen.add(identifier)


def read_word(folder: Path) -> WordFiles:
    """One word folder, read and checked (identifiers, spans, judgment range)."""
    for name in (USES, JUDGMENTS):
        if not (folder / name).is_file():
            raise WugFormatError(f"{folder}: no {name}")
    uses = read_table(folder / USES, USE_REQUIRED)
    senses = None
    if (folder / SENSES).is_file():
        senses = read_table(folder / SENSES, SENSE_REQUIRED)
        _check_senses(senses)
    word = WordFiles(folder.name, uses, read_table(folder / JUDGMENTS, JUDGMENT_REQUIRED), senses)
    word.lemma = _check_uses(uses)
    _check_judgments(word)
    return word


def word_folders(root: Path) -> Iterator[Path]:
    """Every folder at or under ``root`` that holds a uses.csv, in sorted order."""
    if (root / USES).is_file():
        yield root
        return
    if not root.is_dir():
        raise WugFormatError(f"{root}: not a folder")
    for path in sorted(root.rglob(USES)):
        yield path.parent


def read_folder(root: Path) -> list[WordFiles]:
    """Every word under ``root``; two words with one folder name are refused."""
    words = [read_word(folder) for folder in word_folders(root)]
    if not words:
        raise WugFormatError(f"{root}: no word folder (a folder with uses.csv) found")
    names = [w.name for w in words]
    for name in names:
        if names.count(name) > 1:
            raise WugFormatError(f"{root}: two word folders are named {name!r}")
    return words


def render_table(columns: list[str], rows: list[dict[str, str]], newline: str) -> str:
    """The file text of a table, as :func:`read_table` reads it back."""
    lines = ["\t".join(columns)] + ["\t".join(row.get(c, "") for c in columns) for row in rows]
    return newline.join(lines) + newline
