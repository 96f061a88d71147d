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
import json
from dataclasses import dataclass

COLUMNS = ("word", "meaning_1", "example_1", "pos_1", "meaning_2", "example_2", "pos_2")
REQUIRED = ("word", "meaning_1", "meaning_2")
MAX_ROWS = 20_000


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
    for name in REQUIRED:
        if not values[name]:
            raise PoolFormatError(f"entry {n}: {name} is empty")
    return PairRow(**values)


def parse_pool(text: str) -> list[PairRow]:
    """The rows of a pool file (JSON or TSV), or ``PoolFormatError`` naming the entry."""
    stripped = text.lstrip("\ufeff").strip()
    if not stripped:
        raise PoolFormatError("the file is empty")
    if stripped.startswith("["):
        try:
            data = json.loads(stripped)
        except ValueError as exc:
            raise PoolFormatError(f"not valid JSON: {exc}") from None
    else:
        reader = csv.DictReader(io.StringIO(stripped), delimiter="\t")
        missing = [c for c in REQUIRED if c not in (reader.fieldnames or [])]
        if missing:
            raise PoolFormatError(f"the header line lacks {', '.join(missing)}")
        data = [{k: v for k, v in row.items() if k in COLUMNS} for row in reader]
    if not isinstance(data, list):
        raise PoolFormatError("a JSON pool file holds a list of entries")
    if len(data) > MAX_ROWS:
        raise PoolFormatError(f"at most {MAX_ROWS} entries per file")
    return [_row(n, raw) for n, raw in enumerate(data, start=1)]
