"""sensebench items (the lexEN item format) to ``ambisite-sense-choice-v1``, for
:func:`annotations.sensechoice.parse_sense_choice` and its all-or-nothing import.

An item (one JSON object per line) has ``item_id``, ``lemma``, ``pos`` (NOUN, VERB, ADJ, ADV),
``target_text``, ``sentences`` (the document's sentences around the target, each a list of
tokens), ``sentence_index`` (which of them holds the target), ``target_token_index`` and
``gold_sense_keys`` (WordNet sense keys). The context is the sensebench window (p004's
``previous_sentences: 5, next_sentences: 1``): up to 5 sentences before the target's and 1
after, detokenized, the target token marked ``<t>...</t>``. Items carry no glosses, so the
candidates come from a sense inventory ``{sense_key: {"definition", "synonyms",
"examples"}}``: every key of the item's lemma whose WordNet synset type fits the item's part
of speech (``%1`` noun, ``%2`` verb, ``%3``/``%5`` adjective, ``%4`` adverb), in the
inventory's order. Gold is the first gold key among them (the site stores one gold sense).
The part of speech is kept as the item's ``set``, so a run's scores come per part of speech.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from .safe_input import InputError, is_blank, iter_lines, load_path, loads_line, subject
from .sensechoice import FORMAT, SenseChoiceData, SenseChoiceFormatError, parse_sense_choice

BEFORE, AFTER = 5, 1
SYNSET_TYPES = {"NOUN": ("1",), "VERB": ("2",), "ADJ": ("3", "5"), "ADV": ("4",)}
_NO_SPACE_BEFORE = re.compile(r" ([.,;:!?%)\]}]|'s\b|n't\b|'re\b|'ve\b|'ll\b|'d\b|'m\b)")
_NO_SPACE_AFTER = re.compile(r"([(\[{$]) ")


def detokenize(tokens: Sequence[str]) -> str:
    """Tokens joined as running text (no space before closing punctuation and clitics)."""
    text = " ".join(tokens)
    return _NO_SPACE_AFTER.sub(r"\1", _NO_SPACE_BEFORE.sub(r"\1", text))


def window(item: Mapping, where: str) -> str:
    """The item's context: the sentences around the target's, the target marked."""
    sentences, at, token = item["sentences"], item["sentence_index"], item["target_token_index"]
    if not isinstance(sentences, list) or not all(
        isinstance(s, list) and all(isinstance(t, str) for t in s) for s in sentences
    ):
        raise SenseChoiceFormatError(
            f"{where}: sentences must be a list of sentences (token lists)"
        )
    if not isinstance(at, int) or not 0 <= at < len(sentences):
        raise SenseChoiceFormatError(f"{where}: sentence_index {at!r} is not a sentence")
    target = list(sentences[at])
    if not isinstance(token, int) or not 0 <= token < len(target):
        raise SenseChoiceFormatError(f"{where}: target_token_index {token!r} is not a token")
    if target[token] != item["target_text"]:
        raise SenseChoiceFormatError(
            f"{where}: token {token} is {target[token]!r}, not target_text {item['target_text']!r}"
        )
    target[token] = f"<t>{target[token]}</t>"
    shown = [*sentences[max(0, at - BEFORE) : at], target, *sentences[at + 1 : at + 1 + AFTER]]
    return " ".join(detokenize(s) for s in shown)


def candidates(lemma: str, pos: str, senses: Mapping[str, Mapping]) -> list[dict]:
    """The inventory's senses of ``lemma`` with ``pos``, as sense-choice candidates."""
    types = SYNSET_TYPES[pos]
    found = []
    for key, sense in senses.items():
        head, _, rest = key.partition("%")
        if head.lower() == lemma.lower() and rest[:1] in types:
            found.append(
                {
                    "key": key,
                    "gloss": sense.get("definition", ""),
                    "synonyms": sense.get("synonyms", []),  # a list of strings: checked as
                    "examples": sense.get("examples", []),  # a candidate's (sensechoice)
                }
            )
    return found


REQUIRED = ("item_id", "lemma", "pos", "target_text", "sentences", "sentence_index",
            "target_token_index", "gold_sense_keys")  # fmt: skip


def convert_item(item: object, senses: Mapping[str, Mapping], line: int) -> dict:
    """One sensebench item as a sense-choice item (errors name the line and field)."""
    if not isinstance(item, dict):
        raise SenseChoiceFormatError(f"line {line}: not a JSON object")
    where = f"line {line} (item {str(item.get('item_id', '?'))[:40]})"
    missing = [name for name in REQUIRED if name not in item]
    if missing:
        raise SenseChoiceFormatError(f"{where}: missing field {', '.join(missing)}")
    if not isinstance(item["pos"], str) or item["pos"] not in SYNSET_TYPES:
        raise SenseChoiceFormatError(
            f"{where}: pos {str(item['pos'])[:10]!r} is not one of {', '.join(SYNSET_TYPES)}"
        )
    golds = item["gold_sense_keys"]
    if not isinstance(golds, list) or not all(isinstance(k, str) for k in golds):
        raise SenseChoiceFormatError(f"{where}: gold_sense_keys must be a list of sense keys")
    found = candidates(str(item["lemma"]), item["pos"], senses)
    keys = [c["key"] for c in found]
    gold = next((k for k in golds if k in keys), None)
    if gold is None:
        raise SenseChoiceFormatError(f"{where}: no gold sense key is among the lemma's senses")
    return {
        "id": str(item["item_id"]),
        "lemma": str(item["lemma"]),
        "context": window(item, where),
        "candidates": found,
        "gold": gold,
        "set": item["pos"],  # kept as the item's set: scores then come per part of speech
    }


def sensebench_document(
    lines: Iterable[str | bytes],
    senses: Mapping[str, Mapping],
    *,
    dataset: str,
    title: str,
    split: str,
) -> dict:
    """JSON lines of sensebench items (strings, or a binary file's lines) and an inventory as
    one sense-choice document; each line read under :mod:`annotations.safe_input`'s rules
    (UTF-8, a BOM allowed, no key twice, no NaN), errors naming the line."""
    items = []
    try:
        for n, text in iter_lines(lines):
            if not is_blank(text):
                items.append(convert_item(loads_line(n, text), senses, n))
    except InputError as error:
        raise SenseChoiceFormatError(str(error)) from None
    return {"format": FORMAT, "dataset": dataset, "title": title, "split": split,
            "source": "sensebench items", "items": items}  # fmt: skip


def load_sensebench(
    items_path: str | Path, senses_path: str | Path, *, dataset: str, title: str, split: str
) -> SenseChoiceData:
    """Read sensebench items (JSON lines) and their inventory, checked as one document."""
    try:
        senses = load_path(str(senses_path))
    except InputError as error:
        raise SenseChoiceFormatError(subject(str(error), "the sense inventory")) from None
    if not isinstance(senses, dict) or not all(isinstance(v, dict) for v in senses.values()):
        raise SenseChoiceFormatError("the sense inventory must be {sense_key: {definition, ...}}")
    with Path(items_path).open("rb") as lines:
        doc = sensebench_document(lines, senses, dataset=dataset, title=title, split=split)
    return parse_sense_choice(doc)
