"""Import of RAW-C (Trott & Bergen 2021): relatedness of a word across two sentences.

Three files from one folder: ``raw-c.csv`` (672 pairs of 112 words with the same-sense and
homonymy/polysemy labels and the paper's BERT/ELMo distances), ``normed_critical.csv`` (each
participant's 0-4 judgment of each pair) and ``raw-c_with_dominance.csv`` (sense dominance
of sentence 2, different-sense pairs only). Parsed to plain dataclasses first, then written
in one transaction; a second import of the same files creates nothing, a later file may add
pairs and judgments (of new or stored pairs), and one that changes a stored pair or judgment
(a corrected score or distance, other sentences) is refused naming the pair and the field,
nothing written (``importers.changed_field``, AmbiStory's rule).
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from django.db import transaction

from .data_versions import data_changed
from .import_limits import finite_problem, length_problem, slug_problem
from .importers import changed_field, homonym_ids, positions_after, stories_without_ending
from .metrics_relatedness import LeaveOneOut, leave_one_annotator_out
from .models import (
    Dataset,
    Homonym,
    Rater,
    Rating,
    Sample,
    SentencePair,
    Split,
    TaskKind,
    score_range,
)
from .safe_input import InputError, decode, subject
from .signals import bulk_change_announce
from .statistics import analyze_imported

PAIRS_FILE = "raw-c.csv"
JUDGMENTS_FILE = "normed_critical.csv"
DOMINANCE_FILE = "raw-c_with_dominance.csv"
DATASET = "raw-c"
SPLIT = "all"
SOURCE = "github.com/seantrott/raw-c (Trott & Bergen, ACL-IJCNLP 2021)"
RATER_PREFIX = "raw-c:"
# A stored pair's values, by the file's column: (the stored sample's lookup, ``Pair``'s field).
# The word and version are the pair's key; the dominance comes from DOMINANCE_FILE.
STORED = {
    "sentence1": ("story__setup__precontext", "sentence1"),
    "sentence2": ("story__setup__sentence", "sentence2"),
    "string": ("pair__target", "target"),
    "same": ("pair__same_sense", "same_sense"),
    "ambiguity_type": ("pair__ambiguity_type", "ambiguity_type"),
    "Class": ("pair__word_class", "word_class"),
    "distance_bert": ("pair__distance_bert", "distance_bert"),
    "distance_elmo": ("pair__distance_elmo", "distance_elmo"),
    "dominance_sentence2": ("pair__dominance", "dominance"),
}
CHANGED = "a later file may add pairs and judgments, not change them"


class RawcFormatError(ValueError):
    """A RAW-C file that does not have the expected columns or values."""


SEPARATOR = ":"


def pair_key(word: str, version: str) -> str:
    """A pair's key, its sample's ``dataset_id``: ``word:version``. No word holds the
    separator (``_word`` refuses one), so the key's first ``:`` ends the word and two pairs
    never share a key (``a:b`` + ``c`` against ``a`` + ``b:c``); stored keys are unchanged."""
    return f"{word}{SEPARATOR}{version}"


def _word(value: str, where: str) -> str:
    if SEPARATOR in value:
        raise RawcFormatError(
            f"{where}: word {value[:40]!r} holds {SEPARATOR!r}, which ends the word in a pair's "
            "key (word:version)"
        )
    return value


@dataclass(frozen=True)
class Pair:
    word: str
    version: str
    target: str
    sentence1: str
    sentence2: str
    same_sense: bool
    ambiguity_type: str
    word_class: str
    distance_bert: float | None
    distance_elmo: float | None
    dominance: float | None = None

    @property
    def key(self) -> str:
        return pair_key(self.word, self.version)


@dataclass(frozen=True)
class Judgment:
    subject: str
    key: str
    score: int


@dataclass(frozen=True)
class RawcData:
    pairs: list[Pair]
    judgments: list[Judgment]


@dataclass(frozen=True)
class RawcReport:
    pairs: int
    words: int
    judgments: int
    participants: int
    pairs_created: int
    judgments_created: int


def _rows(path: Path, needed: set[str], what: str = "") -> list[dict[str, str]]:
    """The rows of one CSV file, read under :mod:`annotations.safe_input`'s rules (UTF-8, no
    NUL) and ``csv``'s own (a field over its size limit); errors name the file and line. A
    file of ``what`` (pairs, judgments) with no rows is refused: there is nothing to import."""
    try:
        text = decode(path.read_bytes())
    except InputError as error:
        raise RawcFormatError(subject(str(error), path.name)) from None
    reader = csv.DictReader(io.StringIO(text, newline=""), restval="")
    try:
        missing = needed - set(reader.fieldnames or ())
        if missing:
            raise RawcFormatError(f"{path.name}: missing columns {', '.join(sorted(missing))}")
        rows = list(reader)
    except csv.Error as error:
        raise RawcFormatError(f"{path.name} line {reader.reader.line_num}: {error}") from None
    if what and not rows:
        raise RawcFormatError(f"{path.name}: no {what}, only the header: nothing to import")
    return rows


def _float(value: str, where: str) -> float | None:
    if value in ("", "NA"):
        return None
    try:
        number = float(value)
    except ValueError:
        raise RawcFormatError(f"{where} is {value[:40]!r}, not a number") from None
    problem = finite_problem(number)
    if problem:
        raise RawcFormatError(f"{where} {problem}")
    return number


def _fits(value: str, model, field: str, where: str) -> str:
    problem = length_problem(value, model, field)
    if problem:
        raise RawcFormatError(f"{where} {problem}")
    return value


def _bool(value: str, where: str) -> bool:
    if value not in ("True", "False"):
        raise RawcFormatError(f"{where}: 'same' is {value[:40]!r}, not True/False")
    return value == "True"


def _dominance(folder: Path) -> dict[tuple[str, str], float | None]:
    """Dominance by (word, version); a pair twice is refused naming both lines, unless its
    rows give the same dominance (a repeated row changes nothing)."""
    rows = _rows(folder / DOMINANCE_FILE, {"word", "version", "dominance_sentence2"})
    found: dict[tuple[str, str], tuple[int, float | None]] = {}
    for n, row in enumerate(rows, start=2):
        where = f"{DOMINANCE_FILE} line {n}"
        key = (row["word"], row["version"])
        value = _float(row["dominance_sentence2"], f"{where}: dominance_sentence2")
        if key in found and found[key][1] != value:
            raise RawcFormatError(
                f"{where}: word {key[0][:40]!r} version {key[1][:40]!r} appears twice (also "
                f"line {found[key][0]}) with another dominance_sentence2"
            )
        found.setdefault(key, (n, value))
    return {key: value for key, (_, value) in found.items()}


def _pair(row: dict[str, str], where: str, dominance: dict) -> Pair:
    if row["ambiguity_type"] not in SentencePair.Ambiguity.values:
        raise RawcFormatError(f"{where}: unknown ambiguity type")
    pair = Pair(
        word=_fits(_word(row["word"], where), Homonym, "form", f"{where}: word"),
        version=_fits(row["version"], SentencePair, "version", f"{where}: version"),
        target=_fits(row["string"], SentencePair, "target", f"{where}: string"),
        sentence1=row["sentence1"],
        sentence2=row["sentence2"],
        same_sense=_bool(row["same"], where),
        ambiguity_type=row["ambiguity_type"],
        word_class=_fits(row["Class"], SentencePair, "word_class", f"{where}: Class"),
        distance_bert=_float(row.get("distance_bert") or "", f"{where}: distance_bert"),
        distance_elmo=_float(row.get("distance_elmo") or "", f"{where}: distance_elmo"),
        dominance=dominance.get((row["word"], row["version"])),
    )
    _fits(pair.key, Sample, "dataset_id", f"{where}: word:version")
    return pair


def load_rawc(folder: str | Path) -> RawcData:
    """Parse the three files; raise ``RawcFormatError`` naming the first problem."""
    folder = Path(folder)
    dominance = _dominance(folder)
    columns = {"word", "sentence1", "sentence2", "same", "ambiguity_type", "version", "string"}
    pairs = [
        _pair(row, f"{PAIRS_FILE} line {n}", dominance)
        for n, row in enumerate(_rows(folder / PAIRS_FILE, columns | {"Class"}, "pairs"), start=2)
    ]
    keys: dict[str, int] = {}  # line by key
    for n, pair in enumerate(pairs, start=2):
        if pair.key in keys:
            raise RawcFormatError(
                f"{PAIRS_FILE} line {n}: pair {pair.key[:80]} appears twice (also line "
                f"{keys[pair.key]})"
            )
        keys[pair.key] = n
    return RawcData(pairs=pairs, judgments=_judgments(folder / JUDGMENTS_FILE, set(keys)))


def _judgments(path: Path, keys: set[str]) -> list[Judgment]:
    low, high = score_range(TaskKind.RELATEDNESS)
    judgments, seen = [], set()
    for n, row in enumerate(
        _rows(path, {"subject", "word", "version", "relatedness"}, "judgments"), 2
    ):
        key = pair_key(_word(row["word"], f"{path.name} line {n}"), row["version"])
        if key not in keys:
            raise RawcFormatError(f"{path.name} line {n}: no pair {key[:80]}")
        where = f"{path.name} line {n}: subject"
        _fits(RATER_PREFIX + row["subject"], Rater, "pseudonym", where)
        try:
            score = int(row["relatedness"])
        except ValueError:
            raise RawcFormatError(f"{path.name} line {n}: relatedness is not a number") from None
        if not low <= score <= high:
            raise RawcFormatError(f"{path.name} line {n}: relatedness {score} outside 0-4")
        if (row["subject"], key) in seen:
            raise RawcFormatError(f"{path.name} line {n}: a second judgment of {key}")
        seen.add((row["subject"], key))
        judgments.append(Judgment(subject=row["subject"], key=key, score=score))
    return judgments


@transaction.atomic
def rawc_import(*, data: RawcData, dataset: str = DATASET) -> RawcReport:
    """Write the pairs (as relatedness samples with their labels) and every participant's
    judgments (one imported rater per participant). Stored pairs and judgments the file
    holds too must be as stored (else ``RawcFormatError`` naming the pair and the field)."""
    problem = slug_problem(dataset, Dataset)
    if problem:
        raise RawcFormatError(f"the dataset name {problem}")
    ds, _ = Dataset.objects.get_or_create(
        name=dataset,
        defaults={"title": "RAW-C", "task_kind": TaskKind.RELATEDNESS, "source": SOURCE},
    )
    if ds.task_kind != TaskKind.RELATEDNESS:
        raise RawcFormatError(f"dataset {dataset} exists with task kind {ds.task_kind}")
    split, _ = Split.objects.get_or_create(dataset=ds, name=SPLIT)
    numbers = positions_after([split.pk])[split.pk]  # first: the lock (see there)
    existing = _stored_pairs(split, data.pairs)
    new = [(next(numbers), pair) for pair in data.pairs if pair.key not in existing]
    existing |= _pairs_create(split, new)  # keys are unique in a file (``load_rawc``)
    created = len(new)
    raters = _raters({j.subject for j in data.judgments})
    stored = Rating.objects.filter(sample__split=split).values_list(
        "sample_id", "rater_id", "position", "score"
    )
    taken: dict[int, set[int]] = defaultdict(set)  # positions in use, by sample id
    known: dict[tuple[int, int], int] = {}  # score by (sample id, rater id)
    for sample_id, rater_id, position, score in stored:
        known[(sample_id, rater_id)] = score
        if position is not None:  # a rating made in AmbiSite has none
            taken[sample_id].add(position)
    _check_judgments(data.judgments, existing, raters, known)
    before = len(known)
    Rating.objects.bulk_create(
        _ratings(data.judgments, existing, raters, known, taken), ignore_conflicts=True
    )
    after = Rating.objects.filter(sample__split=split).count()
    changed = bool(created or after != before)
    if changed:
        data_changed(kind=ds.task_kind, split_ids=[split.pk])
    analyze_imported(created + after - before)
    if changed:  # after the ANALYZE: the precompute's plans
        bulk_change_announce(kind=ds.task_kind)
    return RawcReport(
        pairs=len(data.pairs),
        words=len({p.word for p in data.pairs}),
        judgments=after,
        participants=len(raters),
        pairs_created=created,
        judgments_created=after - before,
    )


def _stored_pairs(split: Split, pairs: list[Pair]) -> dict[str, int]:
    """``{key: sample id}`` of the split's stored pairs; raises if one the file holds too has
    other values (``changed_field``), naming the pair and the file's column."""
    by_key = {pair.key: pair for pair in pairs}
    lookups = [lookup for lookup, _ in STORED.values()]
    existing = {}
    rows = Sample.objects.filter(split=split).values_list("dataset_id", "id", *lookups)
    for key, pk, *values in rows.iterator():
        existing[key] = pk
        pair = by_key.get(key)
        if pair is None:
            continue
        stored = dict(zip(STORED, values, strict=True))
        field = changed_field(stored, {c: getattr(pair, f) for c, (_, f) in STORED.items()})
        if field:
            raise RawcFormatError(
                f"pair {key[:80]}: field '{field}' is {str(getattr(pair, STORED[field][1]))[:40]!r}"
                f", the imported pair has {str(stored[field])[:40]!r} ({CHANGED})"
            )
    return existing


def _check_judgments(judgments, samples, raters, known: dict[tuple[int, int], int]) -> None:
    """A stored judgment (``known``: score by sample id and rater id) the file holds with
    another score is refused (``changed_field``), naming the pair and the subject."""
    for j in judgments:
        old = known.get((samples[j.key], raters[j.subject]))
        if old is not None and changed_field({"relatedness": old}, {"relatedness": j.score}):
            raise RawcFormatError(
                f"{JUDGMENTS_FILE}: pair {j.key[:80]}, subject {j.subject[:40]}: field "
                f"'relatedness' is {j.score}, the imported judgment {old} ({CHANGED})"
            )


def _pairs_create(split: Split, pairs: list[tuple[int, Pair]]) -> dict[str, int]:
    """The pairs' homonyms and stories (found or made: ``importers``' rules), then their
    samples and labels, in bulk; returns ``{key: sample id}``."""
    if not pairs:
        return {}
    hid = homonym_ids(pair.word for _, pair in pairs)
    text = {p.key: (hid[p.word], p.sentence1, p.sentence2) for _, p in pairs}
    stories = stories_without_ending(text.values())
    samples = Sample.objects.bulk_create(
        [
            Sample(
                split=split,
                story_id=stories[text[pair.key]].id,
                sense=None,
                dataset_id=pair.key,
                position=position,
            )
            for position, pair in pairs
        ],
        batch_size=500,
    )
    SentencePair.objects.bulk_create(
        [
            SentencePair(
                sample=sample,
                target=pair.target,
                same_sense=pair.same_sense,
                ambiguity_type=pair.ambiguity_type,
                word_class=pair.word_class,
                version=pair.version,
                dominance=pair.dominance,
                distance_bert=pair.distance_bert,
                distance_elmo=pair.distance_elmo,
            )
            for sample, (_, pair) in zip(samples, pairs, strict=True)
        ],
        batch_size=500,
    )
    return {sample.dataset_id: sample.pk for sample in samples}


def _raters(subjects: set[str]) -> dict[str, int]:
    names = {f"{RATER_PREFIX}{s}" for s in subjects}
    Rater.objects.bulk_create(
        [Rater(kind=Rater.Kind.IMPORTED, pseudonym=n) for n in sorted(names)],
        ignore_conflicts=True,
    )
    rows = Rater.objects.filter(pseudonym__in=names).values_list("pseudonym", "id")
    return {name.removeprefix(RATER_PREFIX): pk for name, pk in rows}


def _ratings(
    judgments,
    samples: dict[str, int],
    raters: dict[str, int],
    known: dict[tuple[int, int], int],
    taken: dict[int, set[int]],
) -> list[Rating]:
    """The judgments not stored yet (``known``: (sample id, rater id) pairs) as ratings.
    Position k = the k-th judgment of the pair in file order (stable across imports of one
    file); where a stored rating of the pair holds that position (an earlier file had fewer
    of the pair's judgments), the next free one, so no judgment is dropped as a conflict.
    ``taken`` (positions in use by sample id) gains the positions given."""
    counts: dict[str, int] = defaultdict(int)
    ratings = []
    for j in judgments:
        position = counts[j.key]
        counts[j.key] += 1
        sample_id, rater_id = samples[j.key], raters[j.subject]
        if (sample_id, rater_id) in known:
            continue
        while position in taken[sample_id]:
            position += 1
        taken[sample_id].add(position)
        ratings.append(
            Rating(
                sample_id=sample_id,
                rater_id=rater_id,
                kind=TaskKind.RELATEDNESS,
                score=j.score,
                position=position,
            )
        )
    return ratings


def relatedness_agreement(split: Split) -> LeaveOneOut | None:
    """RAW-C's leave-one-annotator-out agreement over the split's valid ratings."""
    rows = Rating.objects.valid().filter(sample__split=split)
    return leave_one_annotator_out(rows.values_list("rater_id", "sample_id", "score"))
