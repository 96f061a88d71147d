"""The homonym pool file: parsed to plain rows first, written in one transaction by
``services.pool_import``.

Either a JSON list of objects or a tab-separated file with a header line; the columns are
``word``, ``meaning_1``, ``example_1``, ``pos_1``, ``meaning_2``, ``example_2``, ``pos_2``
(examples and parts of speech may be empty)::

    [{"word": "bank", "meaning_1": "a financial institution", "example_1": "...",
      "pos_1": "noun", "meaning_2": "sloping land beside a body of water", ...}]
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from annotations.import_limits import length_problem
from annotations.models import Homonym
from annotations.safe_input import DuplicateKey, InputError, decode, loads, subject

from .models import SensePair

COLUMNS = ("word", "meaning_1", "example_1", "pos_1", "meaning_2", "example_2", "pos_2")
REQUIRED = ("word", "meaning_1", "meaning_2")
MAX_ROWS = 20_000
MEANING_MAX_LENGTH = 500  # a meaning or an example, as in the pool page's form
# The columns whose database field has a length: (model, field).
BOUNDED = {"word": (Homonym, "form"), "pos_1": (SensePair, "pos_a"), "pos_2": (SensePair, "pos_b")}


class PoolFormatError(ValueError):
    pass


@dataclass(frozen=True)
class PairRow:
    word: str
    meaning_1: str
    meaning_2: str
    example_1: str = ""
    example_2: str = ""
    pos_1: str = ""
    pos_2: str = ""


def _row(n: int, raw: object) -> PairRow:
    if not isinstance(raw, dict):
        raise PoolFormatError(f"entry {n}: must be an object with {', '.join(REQUIRED)}")
    unknown = sorted(set(raw) - set(COLUMNS))
    if unknown:
        raise PoolFormatError(f"entry {n}: unknown field {unknown[0]!r}")
    values = {}
    for name in COLUMNS:
        value = raw.get(name) or ""
        if not isinstance(value, str):
            raise PoolFormatError(f"entry {n}: {name} must be text")
        values[name] = value.strip()
        problem = _length_problem(name, values[name])
        if problem:
            raise PoolFormatError(f"entry {n}: {name} {problem}")
    for name in REQUIRED:
        if not values[name]:
            raise PoolFormatError(f"entry {n}: {name} is empty")
    return PairRow(**values)


def _length_problem(name: str, value: str) -> str | None:
    if name in BOUNDED:
        return length_problem(value, *BOUNDED[name])
    if len(value) > MEANING_MAX_LENGTH:
        return f"is {len(value)} characters long, over the limit of {MEANING_MAX_LENGTH}"
    return None


def _json_entries(text: str) -> object:
    """The JSON document, read by :mod:`annotations.safe_input` (bounded nesting and numbers,
    no key twice)."""
    try:
        return loads(text)
    except DuplicateKey as exc:
        raise PoolFormatError(
            f"not valid: key {exc.key[:40]!r} appears twice in an entry"
        ) from None
    except InputError as exc:
        raise PoolFormatError(subject(str(exc), "the file")) from None


def _tsv_entries(text: str) -> list[dict]:
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter="\t", restval="")
    try:
        missing = [c for c in REQUIRED if c not in (reader.fieldnames or [])]
        if missing:
            raise PoolFormatError(f"the header line lacks {', '.join(missing)}")
        return [{k: v for k, v in row.items() if k in COLUMNS} for row in reader]
    except csv.Error as exc:
        raise PoolFormatError(f"line {reader.reader.line_num}: {exc}") from None


def parse_pool(data: bytes | str) -> list[PairRow]:
    """The rows of a pool file (JSON or TSV, UTF-8 without NUL), or ``PoolFormatError``
    naming the entry."""
    try:
        stripped = decode(data).strip()
    except InputError as exc:
        raise PoolFormatError(subject(str(exc), "the file")) from None
    if not stripped:
        raise PoolFormatError("the file is empty")
    entries = _json_entries(stripped) if stripped.startswith("[") else _tsv_entries(stripped)
    if not isinstance(entries, list):
        raise PoolFormatError("a JSON pool file holds a list of entries")
    if len(entries) > MAX_ROWS:
        raise PoolFormatError(f"at most {MAX_ROWS} entries per file")
    return [_row(n, raw) for n, raw in enumerate(entries, start=1)]
