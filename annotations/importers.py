"""Import of AmbiStory JSON files: parse to plain dataclasses, then write in one transaction.

Parsing checks every field of every sample and names the sample id and field of the first
problem; writing is atomic and idempotent (a second import of the same file changes nothing,
and an import that would change existing data is refused rather than applied half-way).
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Max

from ambisite.db.row_locks import locked_in_id_order

from .data_versions import data_changed
from .import_limits import length_problem, slug_problem
from .models import (
    SCORE_MAX,
    SCORE_MIN,
    Dataset,
    Homonym,
    Rater,
    Rating,
    Sample,
    Sense,
    Setup,
    Split,
    Story,
)
from .natural_keys import get_or_create_many
from .safe_input import DuplicateKey, InputError, load_path, subject
from .signals import bulk_change_announce
from .statistics import analyze_imported

TEXT_FIELDS = (
    "homonym",
    "judged_meaning",
    "precontext",
    "sentence",
    "ending",
    "sample_id",
    "example_sentence",
)
LABEL_FIELDS = ("choices", "average", "stdev", "nonsensical")
FIELDS = TEXT_FIELDS[:5] + LABEL_FIELDS + TEXT_FIELDS[5:]  # the file's own key order
REDACTED = "(???)"
# The text fields that go into a length-bound column: (model, column).
BOUNDED = {"homonym": (Homonym, "form"), "sample_id": (Sample, "sample_id")}


class AmbiStoryFormatError(ValueError):
    """A sample that does not follow the AmbiStory format; the message names id and field."""

    def __init__(self, sample: str, field_name: str, problem: str):
        self.sample = sample
        self.field = field_name
        if sample == "*":
            message = problem
        elif field_name == "*":
            message = f"sample {sample}: {problem}"
        else:
            message = f"sample {sample}: field '{field_name}' {problem}"
        super().__init__(message)


@dataclass(frozen=True)
class ParsedSample:
    dataset_id: str
    homonym: str
    judged_meaning: str
    precontext: str
    sentence: str
    ending: str
    sample_id: str
    example_sentence: str
    choices: tuple[int, ...] = ()
    nonsensical: tuple[bool, ...] = ()

    @property
    def labelled(self) -> bool:
        return bool(self.choices)

    def as_text(self) -> dict:
        return {name: getattr(self, name) for name in TEXT_FIELDS}


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_labels(sid: str, raw: Mapping) -> tuple[tuple[int, ...], tuple[bool, ...]]:
    choices, nonsensical = raw["choices"], raw["nonsensical"]
    if not isinstance(choices, list) or not choices:
        raise AmbiStoryFormatError(sid, "choices", "must be a non-empty list of scores")
    for value in choices:
        if not _is_int(value):
            raise AmbiStoryFormatError(sid, "choices", f"holds {value!r}, not an integer")
        if not SCORE_MIN <= value <= SCORE_MAX:
            raise AmbiStoryFormatError(
                sid, "choices", f"holds {value}, outside {SCORE_MIN}-{SCORE_MAX}"
            )
    if not isinstance(nonsensical, list) or len(nonsensical) != len(choices):
        raise AmbiStoryFormatError(sid, "nonsensical", "must be a list as long as choices")
    if not all(isinstance(flag, bool) for flag in nonsensical):
        raise AmbiStoryFormatError(sid, "nonsensical", "must hold only true/false")
    expected = {
        "average": sum(choices) / len(choices),
        "stdev": statistics.stdev(choices) if len(choices) > 1 else 0.0,
    }
    for name, value in expected.items():
        got = raw[name]
        if not isinstance(got, (int, float)) or isinstance(got, bool):
            raise AmbiStoryFormatError(sid, name, f"is {got!r}, not a number")
        if not math.isclose(got, value, rel_tol=1e-9, abs_tol=1e-9):
            raise AmbiStoryFormatError(sid, name, f"is {got} but the choices give {value}")
    return tuple(choices), tuple(nonsensical)


def redacted_labels() -> dict[str, str]:
    """The label fields of an unlabelled sample as the official test files write them
    (every one ``"(???)"``): what ``allow_redacted`` reads as "no labels", and what the
    AmbiStory export writes for a sample with no rating, so that the file imports back."""
    return dict.fromkeys(LABEL_FIELDS, REDACTED)


def _is_redacted(raw: Mapping) -> bool:
    return all(raw.get(name) == REDACTED for name in ("choices", "average"))


def parse_sample(sid: str, raw: object, *, allow_redacted: bool = False) -> ParsedSample:
    if not isinstance(raw, Mapping):
        raise AmbiStoryFormatError(sid, "*", "must be a JSON object")
    for name in FIELDS:
        if name not in raw:
            raise AmbiStoryFormatError(sid, name, "is missing")
    for name in TEXT_FIELDS:
        if not isinstance(raw[name], str):
            raise AmbiStoryFormatError(sid, name, f"is {raw[name]!r}, not a string")
    for name in ("homonym", "judged_meaning", "sentence"):
        if not raw[name].strip():
            raise AmbiStoryFormatError(sid, name, "is empty")
    for name, (model, column) in BOUNDED.items():
        problem = length_problem(raw[name], model, column)
        if problem:
            raise AmbiStoryFormatError(sid, name, problem)
    texts = {name: raw[name] for name in TEXT_FIELDS}
    if allow_redacted and _is_redacted(raw):
        return ParsedSample(dataset_id=sid, **texts)
    choices, nonsensical = _check_labels(sid, raw)
    return ParsedSample(dataset_id=sid, choices=choices, nonsensical=nonsensical, **texts)


def parse_ambistory(data: object, *, allow_redacted: bool = False) -> list[ParsedSample]:
    """Check a parsed AmbiStory JSON document and return its samples in file order."""
    if not isinstance(data, Mapping):
        raise AmbiStoryFormatError("*", "*", "the file must hold a JSON object of samples")
    if not data:
        raise AmbiStoryFormatError("*", "*", "the file holds no samples: nothing to import")
    for sid in data:
        problem = length_problem(str(sid), Sample, "dataset_id")
        if problem:
            raise AmbiStoryFormatError("*", "*", f"a sample id {problem}")
    return [parse_sample(str(sid), raw, allow_redacted=allow_redacted) for sid, raw in data.items()]


def load_ambistory(path: str, *, allow_redacted: bool = False) -> list[ParsedSample]:
    """Read and check an AmbiStory file under :mod:`annotations.safe_input`'s rules (UTF-8,
    numbers that fit a double, bounded nesting, no key twice): every problem is an
    :class:`AmbiStoryFormatError` naming the sample id and field where there is one.
    ``OSError`` passes through for the caller."""
    try:
        data = load_path(path)
    except DuplicateKey as error:
        if error.key in FIELDS:
            raise AmbiStoryFormatError("?", error.key, "appears twice in one sample") from None
        raise AmbiStoryFormatError(error.key, "*", "appears twice in the file") from None
    except InputError as error:
        raise AmbiStoryFormatError("*", "*", subject(str(error), "the file")) from None
    return parse_ambistory(data, allow_redacted=allow_redacted)


RATINGS_PER_WRITE = 1000


@dataclass
class ImportReport:
    split: str
    samples_created: int = 0
    samples_existing: int = 0
    ratings_created: int = 0
    setups_created: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.samples_created or self.ratings_created)


def positions_after(split_ids: Iterable[int]) -> dict[int, Iterator[int]]:
    """For each split, the positions its new samples take in file order: on from one past the
    split's last stored position (0 for an empty split), so that two files imported into one
    split (a later AmbiStory file, sensebench's nouns then its verbs) never share a position
    and no stored sample is renumbered. Every importer of samples calls it first in its
    transaction, once it has its splits and before it reads or writes anything else: the
    splits' rows are locked here until the commit, so two imports into one split at once
    run one after the other. The second numbers after the first's samples instead of from
    the same last position, and, for the same file, finds every sample, text and rating
    stored (nothing to write) instead of failing on a unique constraint."""
    ids = set(split_ids)
    list(Split.objects.select_for_update().filter(pk__in=ids).order_by("pk").values_list("pk"))
    last = dict(
        Sample.objects.filter(split_id__in=ids)
        .values("split_id")
        .annotate(last=Max("position"))
        .values_list("split_id", "last")
    )
    return {pk: itertools.count(last.get(pk, -1) + 1) for pk in ids}


def stories_locked(story_ids: Iterable[int]) -> None:
    """Lock the stories of the samples about to be written until the commit, in id order,
    before looking for other samples of them: the importers' second lock. A story is judged
    for a sense in one split only (``unique_story_sense``), and two writers into two splits
    take two split locks that order nothing; the second to lock a shared story waits for the
    first's commit and then finds its samples (refused, naming them) instead of failing on
    the constraint. Every writer of samples of shared stories with a sense calls it, and
    takes its locks in one order: the split lock(s) (``positions_after``), then the stories
    by id; the shared rows a writer creates (``get_or_create_many``) come before the story
    locks. Inserting a sample of a locked story does not wait (``locked_in_id_order``)."""
    locked_in_id_order(Story, story_ids)


def homonym_ids(forms: Iterable[str]) -> dict[str, int]:
    """The id of each homonym by its form, found or bulk-created (``get_or_create_many``,
    safe when another import creates the same homonym at once): every importer's homonyms."""
    rows, _ = get_or_create_many(
        Homonym,
        dict.fromkeys((form,) for form in forms),
        ("form",),
        lambda k: Homonym(form=k[0]),
    )
    return {form: row.id for (form,), row in rows.items()}


def stories_without_ending(keys: Iterable[tuple[int, str, str]]) -> dict[tuple, Story]:
    """The story without an ending of each setup key (homonym id, precontext, sentence), its
    setup and story found or bulk-created (``get_or_create_many``): the texts of the kinds
    that have no endings (RAW-C pairs, sense-choice items, usage pairs)."""
    wanted = dict.fromkeys(keys)
    setups, _ = get_or_create_many(
        Setup,
        wanted,
        ("homonym_id", "precontext", "sentence"),
        lambda k: Setup(homonym_id=k[0], precontext=k[1], sentence=k[2]),
    )
    stories, _ = get_or_create_many(
        Story,
        dict.fromkeys((setups[k].pk, "") for k in wanted),
        ("setup_id", "ending"),
        lambda k: Story(setup_id=k[0], ending=k[1]),
    )
    return {k: stories[(setups[k].pk, "")] for k in wanted}


def _write_structure(samples: list[ParsedSample]) -> tuple[dict, dict, int]:
    """Create homonyms, senses, setups and stories; return lookup maps for samples and how
    many setups this import inserted itself (``get_or_create_many``)."""
    hid = homonym_ids(s.homonym for s in samples)
    senses, _ = get_or_create_many(
        Sense,
        dict.fromkeys((hid[s.homonym], s.judged_meaning, s.example_sentence) for s in samples),
        ("homonym_id", "gloss", "example_sentence"),
        lambda k: Sense(homonym_id=k[0], gloss=k[1], example_sentence=k[2]),
    )
    setups, new_setups = get_or_create_many(
        Setup,
        dict.fromkeys((hid[s.homonym], s.precontext, s.sentence) for s in samples),
        ("homonym_id", "precontext", "sentence"),
        lambda k: Setup(homonym_id=k[0], precontext=k[1], sentence=k[2]),
    )
    stories, _ = get_or_create_many(
        Story,
        dict.fromkeys(
            (setups[(hid[s.homonym], s.precontext, s.sentence)].id, s.ending) for s in samples
        ),
        ("setup_id", "ending"),
        lambda k: Story(setup_id=k[0], ending=k[1]),
    )

    def story_of(s: ParsedSample) -> int:
        return stories[(setups[(hid[s.homonym], s.precontext, s.sentence)].id, s.ending)].id

    story_ids = {s.dataset_id: story_of(s) for s in samples}
    sense_ids = {
        s.dataset_id: senses[(hid[s.homonym], s.judged_meaning, s.example_sentence)].id
        for s in samples
    }
    return story_ids, sense_ids, len(new_setups)


def changed_field(stored: Mapping, wanted: Mapping) -> str | None:
    """The first field of ``wanted`` (in its order) whose value is not ``stored``'s, or None.
    The one rule of every importer for an id it has stored already (an AmbiStory sample, a
    RAW-C pair, a sense-choice item): the same values are a no-op, other values are refused
    naming the id and this field, never overwritten nor silently kept as they were."""
    return next((name for name, value in wanted.items() if stored.get(name) != value), None)


def _check_existing(split: Split, samples: list[ParsedSample], story_ids, sense_ids) -> set:
    """Ids already imported; raises if any differs from the file (``changed_field``)."""
    existing = {
        row["dataset_id"]: row
        for row in Sample.objects.filter(split=split).values(
            "id", "dataset_id", "sample_id", "story_id", "sense_id", "position"
        )
    }
    ratings: dict[int, list[tuple]] = {}
    for r in (
        Rating.objects.filter(sample__split=split, position__isnull=False)
        .values_list("sample_id", "score", "nonsensical")
        .order_by("sample_id", "position")
    ):
        ratings.setdefault(r[0], []).append(r[1:])
    for s in samples:
        row = existing.get(s.dataset_id)
        if row is None:
            continue
        stored = {
            "ending": row["story_id"],
            "judged_meaning": row["sense_id"],
            "sample_id": row["sample_id"],
            "choices": ratings.get(row["id"], []),
        }
        wanted = {
            "ending": story_ids[s.dataset_id],
            "judged_meaning": sense_ids[s.dataset_id],
            "sample_id": s.sample_id,
            "choices": list(zip(s.choices, s.nonsensical)) if s.labelled else stored["choices"],
        }
        field = changed_field(stored, wanted)
        if field:
            raise AmbiStoryFormatError(s.dataset_id, field, "differs from the imported sample")
    return set(existing)


def _check_same_texts(split: Split, samples: list[ParsedSample], story_ids, sense_ids):
    """A sample whose story and judged sense another sample has is refused, naming both ids,
    instead of failing on the database's unique constraint: another id of the file, another
    id of this split (a release with new ids), or a sample of another split (ids are per
    split in AmbiStory, train and dev both start at 0)."""
    wanted: dict[tuple[int, int], str] = {}
    for s in samples:
        key = (story_ids[s.dataset_id], sense_ids[s.dataset_id])
        if key in wanted:
            raise AmbiStoryFormatError(
                s.dataset_id, "*", f"has the story and judged meaning of sample {wanted[key]}"
            )
        wanted[key] = s.dataset_id
    clash = Sample.objects.filter(
        story_id__in={k[0] for k in wanted}, sense_id__in={k[1] for k in wanted}
    ).values_list(
        "story_id", "sense_id", "split_id", "split__dataset__name", "split__name", "dataset_id"
    )
    for story, sense, split_id, dataset, other, other_id in clash.iterator():
        sid = wanted.get((story, sense))
        if sid is None or (split_id == split.pk and other_id == sid):
            continue  # another pair, or this very sample (``_check_existing``)
        if split_id == split.pk:
            raise AmbiStoryFormatError(
                sid, "*", f"has the story and judged meaning of the stored sample {other_id}"
            )
        raise AmbiStoryFormatError(
            sid, "*", f"already exists in split {dataset}/{other} (as sample {other_id})"
        )


def _imported_raters(dataset: Dataset, split: Split, count: int) -> list[Rater]:
    raters = []
    for k in range(1, count + 1):
        rater, _ = Rater.objects.get_or_create(
            pseudonym=f"{dataset.name}:{split.name}:rater-{k}",
            defaults={"kind": Rater.Kind.IMPORTED},
        )
        raters.append(rater)
    return raters


def _target(dataset: str, split: str) -> tuple[Dataset, Split]:
    """The dataset and split to import into, made on first use; names checked first."""
    for what, value, model in (("dataset", dataset, Dataset), ("split", split, Split)):
        problem = slug_problem(value, model)
        if problem:
            raise AmbiStoryFormatError("*", "*", f"the {what} name {problem}")
    ds, _ = Dataset.objects.get_or_create(
        name=dataset,
        defaults={
            "title": "AmbiStory (SemEval-2026 Task 5)",
            "source": "github.com/Janosch-Gehring/ambistory",
        },
    )
    sp, _ = Split.objects.get_or_create(dataset=ds, name=split)
    return ds, sp


def _write_ratings(
    ds: Dataset,
    sp: Split,
    new: list[tuple[int, ParsedSample]],
    on_ratings: Callable[[int, int], None] | None,
) -> int:
    """The new samples' ratings, one imported rater per position; returns how many."""
    ids = dict(
        Sample.objects.filter(split=sp, dataset_id__in=[s.dataset_id for _, s in new]).values_list(
            "dataset_id", "id"
        )
    )
    raters = _imported_raters(ds, sp, max((len(s.choices) for _, s in new), default=0))
    ratings = [
        Rating(
            sample_id=ids[s.dataset_id],
            rater=raters[k],
            score=score,
            nonsensical=flag,
            position=k,
        )
        for _, s in new
        for k, (score, flag) in enumerate(zip(s.choices, s.nonsensical))
    ]
    if on_ratings is not None:
        on_ratings(0, len(ratings))
    for start in range(0, len(ratings), RATINGS_PER_WRITE):
        Rating.objects.bulk_create(ratings[start : start + RATINGS_PER_WRITE])
        if on_ratings is not None:
            on_ratings(min(start + RATINGS_PER_WRITE, len(ratings)), len(ratings))
    return len(ratings)


@transaction.atomic
def ambistory_import(
    *,
    samples: list[ParsedSample],
    split: str,
    dataset: str = "ambistory",
    on_ratings: Callable[[int, int], None] | None = None,
) -> ImportReport:
    """Write parsed samples into ``dataset/split``: all of them or, on any error, none.
    ``on_ratings(done, total)`` follows the ratings written (the largest part). Locks, in
    this order: the split (``positions_after``), then the file's stories by id
    (``stories_locked``), so another import of the same stories at once, into any split,
    waits for this one and is then refused naming its samples."""
    ds, sp = _target(dataset, split)
    numbers = positions_after([sp.pk])[sp.pk]  # first: the lock (see there)
    report = ImportReport(split=str(sp))
    story_ids, sense_ids, report.setups_created = _write_structure(samples)
    stories_locked(story_ids.values())  # second: after the split's lock (see there)
    _check_same_texts(sp, samples, story_ids, sense_ids)
    existing = _check_existing(sp, samples, story_ids, sense_ids)
    new = [(next(numbers), s) for s in samples if s.dataset_id not in existing]
    report.samples_existing = len(samples) - len(new)
    if new:
        created = Sample.objects.bulk_create(
            [
                Sample(
                    split=sp,
                    story_id=story_ids[s.dataset_id],
                    sense_id=sense_ids[s.dataset_id],
                    dataset_id=s.dataset_id,
                    sample_id=s.sample_id,
                    position=pos,
                )
                for pos, s in new
            ],
            batch_size=500,
        )
        report.samples_created = len(created)
        report.ratings_created = _write_ratings(ds, sp, new, on_ratings)
        data_changed(kind=ds.task_kind, split_ids=[sp.pk])
        analyze_imported(report.samples_created + report.ratings_created)
        bulk_change_announce(kind=ds.task_kind)  # after the ANALYZE: the precompute's plans
    return report
