"""FOOL's items in the CoarseWSD-20 folder layout to ``ambisite-sense-choice-v1``, for
:func:`annotations.sensechoice.parse_sense_choice` and its all-or-nothing, idempotent import.

FOOL (Ballout et al. 2024) took its training set and part of Set 1 from CoarseWSD-20
(Loureiro et al. 2021), whose layout is one folder per word: ``classes_map.txt`` (JSON, class
number to sense label), and for each set ``<set>.data.txt`` (``position TAB tokens``, one
sentence a line) with ``<set>.gold.txt`` (the class number of the same line). The labels are
FOOL's ``<word>_<sense>``. ``train`` becomes the split ``train`` (what ``knn_probe`` fits on);
``set1`` to ``set4`` (any other name too) are test items whose set is the name without
``set``. The word at the position is marked ``<t>...</t>`` in the detokenized sentence.

A candidate's gloss is the label's gloss from ``glosses`` ({label: gloss}, e.g. the paper's
table as ``data/fool/fool-sample.json`` holds it), else the label read as words
(``crane_bird``: "bird", ``pitcher_pitcher_(container)``: "pitcher (container)").
Every problem names the file, the line and the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from .safe_input import DuplicateKey, InputError, decode, is_blank, load_path, subject
from .sensebench import detokenize
from .sensechoice import FORMAT, SenseChoiceData, SenseChoiceFormatError, parse_sense_choice

TRAIN = "train"
DATA, GOLD, CLASSES = ".data.txt", ".gold.txt", "classes_map.txt"


def label_gloss(word: str, label: str) -> str:
    """A label read as words, for a candidate without a gloss."""
    rest = label[len(word) + 1 :] if label.lower().startswith(word.lower() + "_") else label
    return rest.replace("_", " ").strip() or label


def _classes(folder: Path) -> dict[str, str]:
    where = f"{folder.name}/{CLASSES}"
    try:
        raw = load_path(str(folder / CLASSES))  # safe_input's rules: a BOM is allowed
    except FileNotFoundError:
        raise SenseChoiceFormatError(f"{where}: missing") from None
    except DuplicateKey as error:
        raise SenseChoiceFormatError(f"{where}: class {error.key[:10]!r} twice") from None
    except InputError as error:
        raise SenseChoiceFormatError(f"{where}: not JSON ({error})") from None
    if not isinstance(raw, dict) or not all(isinstance(v, str) and v for v in raw.values()):
        raise SenseChoiceFormatError(f'{where}: must be {{"0": "label", "1": "label", ...}}')
    if not 2 <= len(raw) or len(set(raw.values())) != len(raw):
        raise SenseChoiceFormatError(f"{where}: needs two or more different labels")
    return {str(k): v for k, v in raw.items()}


def _lines(path: Path) -> list[tuple[int, str]]:
    """The file's non-blank lines with their own line numbers (for the errors); a BOM is
    dropped (``safe_input.decode``)."""
    where = f"{path.parent.name}/{path.name}"
    try:
        text = decode(path.read_bytes())
    except InputError as error:
        raise SenseChoiceFormatError(subject(str(error), where)) from None
    return [(n, line) for n, line in enumerate(text.splitlines(), 1) if not is_blank(line)]


def _context(word: str, line: str, where: str) -> str:
    position, tab, text = line.partition("\t")
    if not tab:
        raise SenseChoiceFormatError(f"{where}: expected 'position TAB sentence'")
    tokens = text.split()
    if not (position.strip().isdigit() and int(position) < len(tokens)):
        raise SenseChoiceFormatError(
            f"{where}: position {position.strip()[:10]!r} is not a token of the {len(tokens)}"
        )
    at = int(position)
    if not tokens[at].lower().startswith(word.lower()):
        raise SenseChoiceFormatError(f"{where}: token {at} is {tokens[at][:40]!r}, not {word!r}")
    tokens[at] = f"<t>{tokens[at]}</t>"
    return detokenize(tokens)


def _set_items(folder: Path, name: str, classes: dict[str, str], glosses) -> list[dict]:
    word = folder.name
    data, gold = _lines(folder / f"{name}{DATA}"), folder / f"{name}{GOLD}"
    if not gold.exists():
        raise SenseChoiceFormatError(f"{word}/{name}{GOLD}: missing (beside {name}{DATA})")
    answers = _lines(gold)
    if len(answers) != len(data):
        raise SenseChoiceFormatError(
            f"{word}/{name}{GOLD}: {len(answers)} lines, {name}{DATA} has {len(data)}"
        )
    candidates = [{"key": label, "gloss": glosses.get(label) or label_gloss(word, label)}
                  for _, label in sorted(classes.items(), key=lambda kv: int(kv[0]))]  # fmt: skip
    items = []
    pairs = zip(data, answers, strict=True)
    for n, ((data_line, line), (gold_line, answer)) in enumerate(pairs, start=1):
        if answer.strip() not in classes:
            raise SenseChoiceFormatError(
                f"{word}/{name}{GOLD} line {gold_line}: class {answer.strip()[:10]!r} is not in "
                f"{CLASSES} ({', '.join(sorted(classes))})"
            )
        items.append({
            "id": f"{word}-{name}-{n}",
            "lemma": word,
            "context": _context(word, line, f"{word}/{name}{DATA} line {data_line}"),
            "candidates": candidates,
            "gold": classes[answer.strip()],
            "set": TRAIN if name == TRAIN else name.removeprefix("set"),
            "split": TRAIN if name == TRAIN else "test",
        })  # fmt: skip
    return items


def fool_document(
    root: str | Path, *, dataset: str, title: str, glosses: Mapping[str, str] | None = None
) -> dict:
    """Every word folder under ``root`` as one sense-choice document."""
    root = Path(root)
    folders = sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
    if not folders:
        raise SenseChoiceFormatError(f"{root.name}: no word folders (see docs/task-kinds.md)")
    items = []
    for folder in folders:
        classes = _classes(folder)
        names = sorted(p.name.removesuffix(DATA) for p in folder.glob(f"*{DATA}"))
        if not names:
            raise SenseChoiceFormatError(f"{folder.name}: no <set>{DATA} file")
        for name in names:
            items += _set_items(folder, name, classes, glosses or {})
    return {"format": FORMAT, "dataset": dataset, "title": title, "split": "test",
            "source": "FOOL items (CoarseWSD-20 folder layout)", "items": items}  # fmt: skip


def load_glosses(path: str | Path) -> dict[str, str]:
    """{label: gloss}, or a sense-choice file's inventory (``senses``: {lemma: [{key,
    gloss}]}) flattened to it."""
    try:
        raw = load_path(str(path))
    except InputError as error:
        raise SenseChoiceFormatError(subject(str(error), "the glosses file")) from None
    if isinstance(raw, dict) and isinstance(raw.get("senses"), dict):
        return {
            str(c["key"]): str(c["gloss"])
            for pair in raw["senses"].values()
            if isinstance(pair, list)
            for c in pair
            if isinstance(c, dict) and c.get("key") and c.get("gloss")
        }
    if isinstance(raw, dict) and all(isinstance(v, str) for v in raw.values()):
        return dict(raw)
    raise SenseChoiceFormatError("the glosses file must be {label: gloss} or a sense inventory")


def load_fool(
    root: str | Path, *, dataset: str, title: str, glosses_path: str | Path | None = None
) -> SenseChoiceData:
    """Read a FOOL folder (and optional glosses), checked as one sense-choice document."""
    glosses = load_glosses(glosses_path) if glosses_path else None
    return parse_sense_choice(fool_document(root, dataset=dataset, title=title, glosses=glosses))
