"""The one set of rules for reading untrusted JSON and text files (pure: no Django).

Every parser of uploaded or imported data (AmbiStory import, predictions upload on the site
and the API, ``score``, ``import_predictions``) reads through :func:`loads` and
:func:`iter_lines`, so a bad input is always an :class:`InputError` (a ``ValueError``) with a
message a caller prefixes with the line, id or field, and never another exception:

* the text must be UTF-8 (a leading BOM is allowed) and must not hold a NUL character;
* every number must fit a double: an integer literal longer than :data:`MAX_INTEGER_DIGITS`
  digits (Python refuses more than 4300 anyway), a value beyond the float range (``1e400``,
  or 1 followed by 400 zeros) and ``NaN``/``Infinity`` are refused;
* nesting deeper than :data:`MAX_DEPTH` is refused (100k-deep input would otherwise raise
  ``RecursionError``);
* a key that appears twice in one object is refused, naming the key (JSON parsers usually keep
  the last copy silently);
* an empty text is refused ("nothing to import");
* a text or file longer than ``max_bytes`` is refused (:class:`TooLarge`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator

MAX_DEPTH = 32
MAX_INTEGER_DIGITS = 310  # the largest finite double has 309 digits
MAX_DOUBLE = sys.float_info.max


class InputError(ValueError):
    """Input that breaks one of this module's rules; the message says which."""


class TooLarge(InputError):
    """Input over the size cap (an upload answers 413)."""

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        super().__init__(f"the file is larger than the limit of {max_bytes} bytes")


class DuplicateKey(InputError):
    def __init__(self, key: str):
        self.key = key
        super().__init__(f"key {key!r} appears twice")


def _short(text: str, limit: int = 20) -> str:
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def _parse_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INTEGER_DIGITS:
        raise InputError(f"the number {_short(text)} has {digits} digits: too large")
    value = int(text)
    if abs(value) > MAX_DOUBLE:
        raise InputError(f"the number {_short(text)} is beyond the range of a double")
    return value


def _parse_float(text: str) -> float:
    if len(text) > MAX_INTEGER_DIGITS + 20:
        raise InputError(f"the number {_short(text)} is too long")
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise InputError(f"the number {_short(text)} is beyond the range of a double")
    return value


def _parse_constant(text: str):
    raise InputError(f"{text} is not a number JSON allows")


def _unique_pairs(pairs: list[tuple[str, object]]) -> dict:
    result: dict = {}
    for key, value in pairs:
        if key in result:
            raise DuplicateKey(key)
        result[key] = value
    return result


def _check_tree(data: object) -> None:
    """Depth and NUL characters, walked without recursion."""
    stack = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            if "\x00" in value:
                raise InputError("a string holds a NUL character")
        elif isinstance(value, (dict, list)):
            if depth >= MAX_DEPTH:
                raise InputError(f"the JSON is nested deeper than {MAX_DEPTH} levels")
            items = list(value.items()) if isinstance(value, dict) else value
            for item in items:
                if isinstance(item, tuple):
                    stack.append((item[0], depth + 1))
                    stack.append((item[1], depth + 1))
                else:
                    stack.append((item, depth + 1))


def decode(data: bytes | str, *, first: bool = True) -> str:
    """UTF-8 text of ``data`` (a BOM at the start is dropped); NUL is refused."""
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8-sig" if first else "utf-8")
        except UnicodeDecodeError as error:
            raise InputError(
                f"is not UTF-8 text (byte {error.start + 1}: {error.reason})"
            ) from None
    else:
        text = data.removeprefix("\ufeff") if first else data
    if "\x00" in text:
        raise InputError("holds a NUL character")
    return text


def loads(data: bytes | str, *, max_bytes: int | None = None) -> object:
    """Parse one JSON document under the rules above; raises :class:`InputError`."""
    if max_bytes is not None and len(data) > max_bytes:
        raise TooLarge(max_bytes)
    text = decode(data)
    if not text.strip():
        raise InputError("the file is empty: nothing to import")
    try:
        value = json.loads(
            text,
            object_pairs_hook=_unique_pairs,
            parse_int=_parse_int,
            parse_float=_parse_float,
            parse_constant=_parse_constant,
        )
    except RecursionError:
        raise InputError(f"the JSON is nested deeper than {MAX_DEPTH} levels") from None
    except json.JSONDecodeError as error:
        raise InputError(f"is not valid JSON ({error.msg} at column {error.colno})") from None
    except ValueError as error:  # int() beyond Python's digit limit, should the check miss
        if isinstance(error, InputError):
            raise
        raise InputError(f"a number is not acceptable ({error})") from None
    _check_tree(value)
    return value


def load_path(path: str, *, max_bytes: int | None = None) -> object:
    """:func:`loads` of a file's content (``OSError`` passes through for the caller)."""
    with open(path, "rb") as handle:
        data = handle.read() if max_bytes is None else handle.read(max_bytes + 1)
    return loads(data, max_bytes=max_bytes)


def iter_lines(
    chunks: Iterable[bytes | str], *, max_bytes: int | None = None
) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` of a file read as a stream of lines (a binary file, an
    ``UploadedFile`` or a list of strings): each line is decoded as it comes, so memory stays
    flat; the line number goes into every error."""
    total = 0
    for number, line in enumerate(chunks, start=1):
        total += len(line)
        if max_bytes is not None and total > max_bytes:
            raise TooLarge(max_bytes)
        try:
            yield number, decode(line, first=number == 1)
        except TooLarge:
            raise
        except InputError as error:
            raise InputError(subject(str(error), f"line {number}")) from None


def is_blank(line: str) -> bool:
    """A line that holds nothing but whitespace: the line readers (sensebench, FOOL, WUG)
    skip it, counting it in the line numbers of later errors."""
    return not line.strip()


def subject(message: str, who: str) -> str:
    """``message`` about ``who`` ("line 3", "the file"): "is not valid JSON" reads
    "line 3 is not valid JSON", other messages follow a colon."""
    if message.startswith(("is ", "holds ")):
        return f"{who} {message}"
    return f"{who}: {message}"


def loads_line(number: int, text: str) -> object:
    """:func:`loads` of one jsonl line, the error prefixed with the line number."""
    try:
        return loads(text)
    except InputError as error:
        raise InputError(subject(str(error), f"line {number}")) from None
