"""The list design's rules as pure functions (no Django): fixed lists of samples made from a
study's samples, their Latin-square orders, and a researcher's list file parsed and checked.

The AmbiStory paper split its annotators into groups of five, each group rating a fixed list
of 30 samples, and no annotator received two variants of one story ("so that each story's
annotations remain independent of each other"): a list holds at most one sample per setup.
``studies.lists`` stores the lists and hands them out; this module decides what they are.
"""

from __future__ import annotations

import csv
import io
import json
import random
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

MAX_LISTS = 10_000
MAX_LIST_ITEMS = 500


class ListFileError(ValueError):
    """A list file is refused; ``line`` is its 1-based line (0: the file as a whole)."""

    def __init__(self, line: int, message: str):
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line


def list_count(n_samples: int, size: int, largest_setup: int) -> int:
    """How many lists ``make_lists`` makes: enough for lists of at most ``size`` samples,
    and at least as many as the largest setup has samples (one per list)."""
    return max(-(-n_samples // max(size, 1)), largest_setup)


def list_sizes(n_samples: int, size: int, largest_setup: int) -> tuple[int, int]:
    """(shortest, longest) of the lists ``make_lists`` makes of ``n_samples`` (at least 1):
    its samples are dealt in turn, so the sizes differ by at most one."""
    n_lists = list_count(n_samples, size, largest_setup)
    return n_samples // n_lists, -(-n_samples // n_lists)


def make_lists(samples: Sequence[tuple[int, Hashable]], size: int, seed: int) -> list[list[int]]:
    """Lists of sample ids, every sample in exactly one list, no list with two samples of one
    setup, sizes at most ``size`` and differing by at most one (``samples`` as ``(sample id,
    setup)``). Setups are shuffled (seeded) and their samples dealt to consecutive lists in
    turn, so a setup's samples land in distinct lists whenever there are at least as many
    lists as the setup has samples, which ``list_count`` guarantees. Raises ``ValueError``
    for a size below 1."""
    if size < 1:
        raise ValueError("A list needs at least one sample.")
    by_setup: dict[Hashable, list[int]] = {}
    for sample_id, setup in sorted(samples, key=lambda s: s[0]):
        by_setup.setdefault(setup, []).append(sample_id)
    if not by_setup:
        return []
    rng = random.Random(seed)
    setups = sorted(by_setup, key=str)
    rng.shuffle(setups)
    n_lists = list_count(len(samples), size, max(len(v) for v in by_setup.values()))
    lists: list[list[int]] = [[] for _ in range(n_lists)]
    dealt = 0
    for setup in setups:
        for sample_id in by_setup[setup]:
            lists[dealt % n_lists].append(sample_id)
            dealt += 1
    for items in lists:
        rng.shuffle(items)  # the list's base order: not grouped by homonym
    return lists


def item_order(n_items: int, rotation: int, n_rotations: int) -> list[int]:
    """The order in which participant ``rotation`` (0-based) of a list's ``n_rotations``
    sees its ``n_items`` items, as indices into the list's base order: a Latin-square row.
    The rows are the base order rotated by evenly spaced offsets, so across the list's
    participants every item appears at as many different positions as there are
    participants, and each item is as often early as late."""
    if n_items <= 0:
        return []
    offset = (rotation % max(n_rotations, 1)) * n_items // max(n_rotations, 1)
    return [(offset + i) % n_items for i in range(n_items)]


@dataclass(frozen=True)
class ListEntry:
    """One item of an uploaded list: the sample reference as written, and its line."""

    ref: str
    line: int


@dataclass(frozen=True)
class ParsedList:
    line: int  # where the list starts
    items: tuple[ListEntry, ...]


def parse_lists(text: str, name: str = "") -> list[ParsedList]:
    """A researcher's list file: JSON (an array of arrays of sample ids, or
    ``{"lists": [...]}``) when ``name`` ends in ``.json`` or the text starts with ``[`` or
    ``{``; otherwise CSV, one list per line (its cells are the sample ids, in order; empty
    lines and lines starting with ``#`` are skipped). Raises ``ListFileError`` naming the
    line."""
    stripped = text.lstrip("\ufeff").lstrip()
    if name.lower().endswith(".json") or stripped[:1] in ("[", "{"):
        lists = _parse_json(text.lstrip("\ufeff"))
    else:
        lists = _parse_csv(text.lstrip("\ufeff"))
    if not lists:
        raise ListFileError(0, "The file holds no list.")
    if len(lists) > MAX_LISTS:
        raise ListFileError(lists[MAX_LISTS].line, f"more than {MAX_LISTS} lists")
    for parsed in lists:
        if not parsed.items:
            raise ListFileError(parsed.line, "this list is empty")
        if len(parsed.items) > MAX_LIST_ITEMS:
            raise ListFileError(parsed.line, f"more than {MAX_LIST_ITEMS} samples in one list")
    return lists


def _parse_csv(text: str) -> list[ParsedList]:
    out = []
    for number, line in enumerate(io.StringIO(text), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            refs = [c.strip() for c in next(csv.reader([line]))]
        except csv.Error as exc:
            raise ListFileError(number, f"not a CSV line ({exc})") from None
        while refs and not refs[-1]:  # a trailing comma
            refs.pop()
        if any(not r for r in refs):
            raise ListFileError(number, "an empty cell where a sample id belongs")
        out.append(ParsedList(number, tuple(ListEntry(r, number) for r in refs)))
    return out


def _parse_json(text: str) -> list[ParsedList]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ListFileError(exc.lineno, f"not valid JSON ({exc.msg})") from None
    except (RecursionError, ValueError):  # nested too deep; a number too long to read
        raise ListFileError(0, "The file is not valid JSON for lists.") from None
    if isinstance(data, dict):
        data = data.get("lists")
    if not isinstance(data, list):
        raise ListFileError(1, 'expected an array of lists (or {"lists": [...]})')
    lines = _json_item_lines(text)
    out = []
    for k, items in enumerate(data):
        start, item_lines = lines[k] if k < len(lines) else (1, [])
        if not isinstance(items, list):
            raise ListFileError(start, f"list {k + 1} is not an array of sample ids")
        entries = []
        for j, ref in enumerate(items):
            line = item_lines[j] if j < len(item_lines) else start
            if isinstance(ref, bool) or not isinstance(ref, (str, int)):
                raise ListFileError(line, f"list {k + 1}, item {j + 1}: not a sample id")
            entries.append(ListEntry(str(ref).strip(), line))
        out.append(ParsedList(start, tuple(entries)))
    return out


def _json_item_lines(text: str) -> list[tuple[int, list[int]]]:
    """Per inner array of a valid JSON document's list of lists: the line it starts on and
    the line of each of its values (a small scanner over strings, nesting and line breaks;
    the outer array is the first array opened)."""
    out: list[tuple[int, list[int]]] = []
    stack: list[str] = []  # the open containers
    line, in_string, escaped, outer, expecting = 1, False, False, -1, False
    for ch in text:
        if ch == "\n":
            line += 1
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            continue
        inner = outer >= 0 and len(stack) == outer + 2 and stack[-1] == "["
        if expecting and inner and not ch.isspace() and ch not in ",]":
            out[-1][1].append(line)
            expecting = False
        if ch in "[{":
            stack.append(ch)
            if ch == "[" and outer < 0:
                outer = len(stack) - 1
            elif ch == "[" and len(stack) == outer + 2 and stack[outer] == "[":
                out.append((line, []))
                expecting = True
        elif ch in "]}":
            if stack:
                stack.pop()
        elif ch == "," and inner:
            expecting = True
        elif ch == '"':
            in_string = True
    return out


@dataclass(frozen=True)
class SampleRef:
    """A study sample as a list file may name it: its dataset id and its split's name."""

    sample_id: int
    setup: Hashable


def resolve_lists(
    lists: Sequence[ParsedList],
    study_samples: Mapping[str, Sequence[SampleRef]],
    *,
    per_word: bool = False,
) -> list[list[int]]:
    """The uploaded lists as sample ids, checked against the study: every reference names
    one sample of the study (``study_samples`` maps ``dataset id`` and ``split:dataset id``
    to the samples they may mean), no sample twice in a list and no two samples of one setup
    in a list (the paper's rule; ``per_word``: ``SampleRef.setup`` is the word, RAW-C's one
    item per word). Raises ``ListFileError`` naming the line."""
    out = []
    for k, parsed in enumerate(lists, start=1):
        seen: dict[int, int] = {}
        setups: dict[Hashable, int] = {}
        ids = []
        for entry in parsed.items:
            found = study_samples.get(entry.ref, ())
            if not found:
                raise ListFileError(entry.line, f"list {k}: {entry.ref!r} is not a study sample")
            if len(found) > 1:
                raise ListFileError(
                    entry.line,
                    f"list {k}: {entry.ref!r} names samples of several splits; write split:id",
                )
            ref = found[0]
            if ref.sample_id in seen:
                raise ListFileError(entry.line, f"list {k}: sample {entry.ref!r} twice")
            if ref.setup in setups:
                raise ListFileError(
                    entry.line, _second_of_unit(k, entry.ref, setups[ref.setup], per_word)
                )
            seen[ref.sample_id] = entry.line
            setups[ref.setup] = entry.line
            ids.append(ref.sample_id)
        out.append(ids)
    return out


def _second_of_unit(k: int, ref: str, first_line: int, per_word: bool) -> str:
    if per_word:
        return (
            f"list {k}: {ref!r} is a second item of a word already in the list (line "
            f"{first_line}); this study holds one item per word"
        )
    return (
        f"list {k}: {ref!r} is a second variant of a story already in the list (line "
        f"{first_line}); a list holds one sample per setup"
    )
