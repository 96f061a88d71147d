"""The seam between the participant pages and the task kinds (``annotations.kinds``).

A rating page shows one item the way its task kind needs: a story with a meaning, two
sentences, a sentence with candidate senses, two uses of a word usage graph. Each kind's
record names the template part that shows the item (``item_template``, included by
``studies/rate.html``), the welcome page's first paragraph (``intro_template``) and a
function that fills in what the items show besides the sample's texts (``details``: the
marked word, the candidates, the uses of a pair; a few queries for a whole batch). Studies
registers its own kinds in ``StudiesConfig.ready``; an app that brings a kind (``wug``:
use pairs) registers its record in its own ``ready``, so studies never imports it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

DEFAULT = "plausibility"


@dataclass(frozen=True)
class KindPage:
    kind: str  # the value of ``annotations.kinds.Kind``
    item_template: str
    intro_template: str
    # fills in the items' kind-specific fields in place (``selectors.Item``: ``target``,
    # ``choices``, ``extra``); None: the sample's texts are all a page shows
    details: Callable[[list[Any]], None] | None = None


_REGISTRY: dict[str, KindPage] = {}


def register(page: KindPage) -> KindPage:
    """Make ``page`` known (idempotent for the same record; a second, different record for
    one kind is a programming error)."""
    known = _REGISTRY.get(page.kind)
    if known is not None and known != page:
        raise ValueError(f"the pages of task kind {page.kind!r} are registered already")
    _REGISTRY[page.kind] = page
    return page


def get(kind: str | None) -> KindPage:
    """The record of ``kind``; plausibility's for no kind. LookupError naming a kind no app
    registered."""
    try:
        return _REGISTRY[kind or DEFAULT]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY))
        raise LookupError(
            f"no pages are registered for task kind {kind!r} (known: {known})"
        ) from None


def details(items: list[Any], kind: str | None) -> list[Any]:
    """``items`` with their kind's details filled in."""
    fill = get(kind).details
    if fill is not None:
        fill(items)
    return items
