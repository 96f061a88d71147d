"""A word-level diff for the clean-up suggestions (pure; no Django)."""

from __future__ import annotations

import difflib
import re


def word_diff(before: str, after: str) -> list[tuple[str, str]]:
    """``[(op, text)]`` with op ``same``, ``del`` or ``ins``, word by word (spaces kept)."""
    a, b = re.findall(r"\S+\s*", before), re.findall(r"\S+\s*", after)
    out: list[tuple[str, str]] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append(("same", "".join(a[i1:i2])))
            continue
        if i2 > i1:
            out.append(("del", "".join(a[i1:i2])))
        if j2 > j1:
            out.append(("ins", "".join(b[j1:j2])))
    return out
