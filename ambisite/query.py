"""Reading ids from a query string: the one rule every view uses."""

from __future__ import annotations

from django.core.exceptions import BadRequest

MAX_ID = 2**63 - 1  # the largest primary key PostgreSQL's bigint holds


def id_param(params, name: str) -> int | None:
    """``params[name]`` as a row id, None when absent or empty; anything that is not a whole
    number from 1 to ``MAX_ID`` raises ``BadRequest`` (Django answers 400) naming the field,
    instead of reaching the database as a 500."""
    raw = (params.get(name) or "").strip()
    if not raw:
        return None
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= MAX_ID:
        raise BadRequest(f"{name} must be an id (a whole number), not {raw[:40]!r}")
    return int(raw)
