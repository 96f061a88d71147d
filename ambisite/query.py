"""Reading ids from a query string: the one rule every view uses."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

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


def bounded_int(value: object, default: int, low: int = 0, high: int = MAX_ID) -> int:
    """``value`` (a form or query value) as a whole number held within ``low..high``;
    ``default`` when it is absent or not a number. For values that may be wrong without the
    request being refused: a bad one reads as ``default`` (an id of 0 finds no row), and one
    too large for the database is held to ``high`` instead of overflowing it."""
    try:
        number = int(str(value).strip())
    except (TypeError, ValueError):
        return default
    return min(max(number, low), high)


def unknown_param(params: Mapping, known: Iterable[str]) -> tuple[str, str] | None:
    """The first query parameter that is not in ``known``, or that is given more than once,
    with the message that names it; None when every one is known and given once. Every view
    that reads a query string refuses through this rule (``annotations.scope.refuse_unknown``,
    the API's ``ambisite.api.StrictFilterBackend``), so a misspelt filter is never silently
    ignored, and ``?split=dev&split=nope`` is never silently read as its last value (no
    parameter takes a list: the API's filters are all single-valued)."""
    allowed = set(known)
    for name in params:
        if name not in allowed:
            listed = ", ".join(sorted(allowed)) or "none"
            return name[:60], f"unknown query parameter (this address takes: {listed})"
        repeated = repeated_param(params, name)
        if repeated is not None:
            return repeated
    return None


def repeated_param(params: Mapping, name: str) -> tuple[str, str] | None:
    """``name`` with the message that refuses it when the query string gives it more than
    once (a ``QueryDict`` keeps every value; ``get`` would silently read the last one)."""
    getlist = getattr(params, "getlist", None)
    times = len(getlist(name)) if getlist is not None else 1
    if times <= 1:
        return None
    return name[:60], f"given {times} times (this address reads one value: give it once)"
