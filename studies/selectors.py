"""Reads for study pages. Participant reads return only the participant's own items and
answers: no means, no other raters' answers, no model scores."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from typing import NamedTuple

from django.db import connection
from django.db.models import F

from annotations.kinds import kind as kind_of
from annotations.models import (
    Rating,
    Sample,
)

from . import kind_pages, shown_texts, sql
from .counterbalance import sentence_order, shown
from .models import AttentionAnswer, CheckQuestion, Participant, Slot, Study


@dataclass
class Item:
    """One item of a batch as the participant sees it; checks look exactly like samples."""

    position: int
    homonym: str
    precontext: str
    sentence: str
    ending: str
    meaning: str
    example_sentence: str
    score: int | None
    nonsensical: bool
    comment: str
    started_at: datetime | None
    sample_id: int | None = None  # None: an attention check
    target: str = ""  # the word to mark in the text (relatedness, sense choice)
    choices: list[Choice] = field(default_factory=list)  # sense choice
    other_meaning: str = ""  # a two-meaning check (CheckQuestion.other_meaning)
    text_version: str = ""  # "setup.story.sense" versions shown (samples only)
    question_id: int | None = None  # an attention check's question
    extra: dict = field(default_factory=dict)  # what a kind's ``details`` adds (kind_pages)
    number: int | None = None  # the slot's number (samples of a batch)
    sentence_order: str = ""  # a pair's order as shown (``studies.counterbalance``)

    @property
    def answered(self) -> bool:
        return self.score is not None


@dataclass(frozen=True)
class Choice:
    """A candidate sense as a participant sees it; ``index`` is the answer's score."""

    index: int
    gloss: str
    synonyms: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()


def with_kind_details(items: list[Item], kind: str) -> list[Item]:
    """Fill in what the task kind shows besides the story (``kind_pages``: its record's
    ``details``, e.g. the marked word and the candidates; two queries at most), after putting
    a counterbalanced pair's sentences in the order shown (``studies.counterbalance``)."""
    if kind_of(kind).sentence_pairs:
        for item in items:  # RAW-C's counterbalanced order, once
            order = sentence_order(pairs=True, number=item.number, sample_id=item.sample_id)
            if order and not item.sentence_order:
                item.sentence_order = order
                item.precontext, item.sentence = shown(item.precontext, item.sentence, order)
    return kind_pages.details(items, kind)


def batch_items(participant: Participant) -> list[Item]:
    """The participant's batch in order, with their own answers (4 or 5 queries)."""
    slots = (
        Slot.objects.filter(participant=participant)
        .exclude(position=None)
        .select_related("sample__story__setup__homonym", "sample__sense")
    )
    ratings = {
        r.sample_id: r
        for r in Rating.objects.filter(
            rater_id=participant.rater_id, sample_id__in=[s.sample_id for s in slots]
        )
    }
    items = [
        _sample_item(slot.sample, slot.position, ratings.get(slot.sample_id))  # type: ignore[arg-type]  # an assigned slot has a position
        for slot in slots
    ]
    for item, slot in zip(items, slots):
        item.number = slot.number
    shown_texts.overlay(participant.study_id, items, {s.sample_id: s.sample for s in slots})
    checks = AttentionAnswer.objects.filter(participant=participant).select_related("question")
    items += [_check_item(check) for check in checks]
    items = with_kind_details(items, participant.study.task_kind)
    return sorted(items, key=lambda item: item.position)


def _sample_item(sample: Sample, position: int, rating: Rating | None) -> Item:
    """One sample as a page shows it (a batch's slot or a preview), with its answer if any."""
    setup = sample.story.setup
    return Item(
        position=position,
        homonym=setup.homonym.form,
        precontext=setup.precontext,
        sentence=setup.sentence,
        ending=sample.story.ending,
        meaning=sample.sense.gloss if sample.sense else "",
        example_sentence=sample.sense.example_sentence if sample.sense else "",
        score=rating.score if rating else None,
        nonsensical=rating.nonsensical if rating else False,
        comment=rating.comment if rating else "",
        started_at=rating.started_at if rating else None,
        sample_id=sample.pk,
        text_version=f"{setup.version}.{sample.story.version}."
        f"{sample.sense.version if sample.sense else 1}",
    )


def _check_item(check: AttentionAnswer) -> Item:
    q = check.question
    return Item(
        position=check.position,
        homonym=q.homonym,
        precontext=q.precontext,
        sentence=q.sentence,
        ending=q.ending,
        meaning=q.meaning,
        example_sentence=q.example_sentence,
        score=check.score,
        nonsensical=check.nonsensical,
        comment=check.comment,
        started_at=check.started_at,
        other_meaning=q.other_meaning,
        question_id=q.pk,
    )


def first_open_position(items: Sequence[Item] | Sequence[BatchRow]) -> int | None:
    """The position of the first item still to answer (None: all answered): the one item a
    participant may answer next, for the pages and for the save alike."""
    return next((item.position for item in items if not item.answered), None)


@cache
def _row_reader(model, names: tuple[str, ...], vendor: str):
    """(column, database converters) pairs of ``model``'s fields ``names`` (attnames), as a
    queryset would apply them (JSON decoding; SQLite's datetimes and booleans). Worked out
    once per process and database vendor: a ``raw()`` query works it out on every call,
    half of its CPU here."""
    by_attname = {f.attname: f for f in model._meta.concrete_fields}
    cols = [by_attname[name].get_col(model._meta.db_table) for name in names]
    ops = connection.ops
    return [(c, ops.get_db_converters(c) + c.get_db_converters(connection)) for c in cols]


def _from_row(model, names: tuple[str, ...], values):
    converted = []
    for value, (col, funcs) in zip(values, _row_reader(model, names, connection.vendor)):
        for func in funcs:
            value = func(value, col, connection)
        converted.append(value)
    return model.from_db(connection.alias, list(names), converted)


def _read(model, names: tuple[str, ...], statement: str, params: list) -> list:
    """The ``model`` instances of a hand-written read whose columns are ``names``."""
    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        return [_from_row(model, names, row) for row in cursor.fetchall()]


def participant_row(params: list, *, by_token: bool = False, lock: bool = False):
    """The participant ``sql.participant_select`` finds (by id, or by resume-token hash
    and study slug, with its study's non-datetime columns), read with a plain cursor and
    locked ``FOR UPDATE`` when ``lock``. Hand-written: it runs on every participant request,
    and costs a quarter of a queryset's CPU."""
    with connection.cursor() as cursor:
        cursor.execute(sql.participant_select(by_token=by_token, lock=lock), params)
        row = cursor.fetchone()
    if row is None:
        return None
    n = len(sql.PARTICIPANT_FIELDS)
    participant = _from_row(Participant, sql.PARTICIPANT_FIELDS, row[:n])
    if by_token:
        study = _from_row(Study, sql.STUDY_FIELDS, row[n:])
        Participant.study.field.set_cached_value(participant, study)
    return participant


def check_questions(study: Study) -> list[CheckQuestion]:
    """Every check question of ``study`` (qualification and attention) in their order, read
    once per study instance (a request's: a later request reads the study, and them, again):
    a consent draws the batch's attention checks and shows the test from one read. A plain
    cursor (``sql.check_questions``): each arrival reads them three times (link, consent,
    test answer), and the queryset cost 0.75 ms of CPU a read against 0.1 ms."""
    found = study.__dict__.get("_check_questions")
    if found is None:
        found = study.__dict__["_check_questions"] = _read(
            CheckQuestion, sql.CHECK_QUESTION_FIELDS, sql.check_questions(), [study.pk]
        )
    return found


def participant_by_pid(study: Study, pid: str) -> Participant | None:
    """The participant of ``study`` with Prolific ID ``pid`` (``sql.participant_by_pid``),
    its study set to ``study``; None when there is none. The arrival link and the consent
    ask, each once (and the consent again when its claim fails)."""
    found = _read(Participant, sql.PARTICIPANT_FIELDS, sql.participant_by_pid(), [study.pk, pid])
    for participant in found:
        Participant.study.field.set_cached_value(participant, study)
    return found[0] if found else None


def finished_minutes(study_id: int) -> tuple[int, float]:
    """How many of the study's participants finished (of its first 1,000 finishers) and the
    median of their minutes from start to finish (the lower middle one of an even count;
    0 without any). PostgreSQL takes the median itself: every arrival link asks (the
    welcome page's estimate), and 1,000 rows of two datetimes each cost milliseconds of CPU
    to read."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(sql.finished_minutes(), [0.5, study_id, Participant.Status.FINISHED])
            count, median = cursor.fetchone()
        return count, median.total_seconds() / 60 if median is not None else 0.0
    finished = Participant.objects.filter(
        study_id=study_id, status=Participant.Status.FINISHED, finished_at__isnull=False
    )
    taken = sorted(
        (end - start).total_seconds() / 60  # type: ignore[operator]  # finished: both set
        for start, end in finished.values_list("started_at", "finished_at")[:1000]
    )
    return len(taken), taken[(len(taken) - 1) // 2] if taken else 0.0


def qualification_questions(study: Study) -> list[CheckQuestion]:
    """The study's qualification questions in their order (the page, the grading and the
    preview all ask here)."""
    return [q for q in check_questions(study) if q.in_qualification]


def participant_by_token(slug: str, token_hash: str, *, lock: bool = False) -> Participant | None:
    """The participant of study ``slug`` (not a draft) whose resume-token hash is
    ``token_hash``, with its study, in one query; its row locked ``FOR UPDATE`` when
    ``lock`` (``services.participant_locked``)."""
    return participant_row([token_hash, slug], by_token=True, lock=lock)


def study_and_participant(
    slug: str, token_hash: str | None
) -> tuple[Study, Participant | None] | None:
    """The study ``slug`` (not a draft) and its participant whose resume-token hash is
    ``token_hash`` (None when no participant has it, or without a hash), in one query on a
    plain cursor; None without such a study. The study has its non-datetime columns
    (``sql.STUDY_FIELDS``), as a participant found by token has."""
    with connection.cursor() as cursor:
        if token_hash is None:
            cursor.execute(sql.study_and_participant(token=False), [slug])
        else:
            cursor.execute(sql.study_and_participant(), [token_hash, slug])
        row = cursor.fetchone()
    if row is None:
        return None
    n = len(sql.STUDY_FIELDS)
    study = _from_row(Study, sql.STUDY_FIELDS, row[:n])
    if token_hash is None or row[n + sql.PARTICIPANT_FIELDS.index("id")] is None:
        return study, None
    participant = _from_row(Participant, sql.PARTICIPANT_FIELDS, row[n:])
    Participant.study.field.set_cached_value(participant, study)
    return study, participant


class BatchRow(NamedTuple):
    position: int
    answered: bool
    kind: str  # "s": a slot, "c": an attention check
    id: int
    sample_id: int | None
    status: str | None
    number: int | None = None  # the slot's number


def batch_rows(participant_id: int) -> list[BatchRow]:
    """Every item of the batch, in order, in one query without joins. A slot is answered
    once it has ``done_at`` (set by the first rating, kept when the slot is voided), an
    attention check once it has a score. Hand-written SQL: this runs on every rating
    request (page and POST)."""
    with connection.cursor() as cursor:
        cursor.execute(sql.batch_rows(), [participant_id, participant_id])
        return [
            BatchRow(pos, bool(done), kind, pk, sample_id, status, number)
            for pos, done, kind, pk, sample_id, status, number in cursor.fetchall()
        ]


def batch_progress(participant: Participant) -> list[tuple[int, bool]]:
    """(position, answered) of every item of the batch, in order (one query)."""
    return [(row.position, row.answered) for row in batch_rows(participant.pk)]


def answered_count(participant: Participant) -> int:
    """How many items of their batch the participant answered (samples and checks); for an
    activity that hands out its own items (writing), its answer rows (``activities``)."""
    activity = participant.study.activity_def
    if not activity.reserves_batch:
        return activity.answers_of(participant).count()
    return sum(1 for _, done in batch_progress(participant) if done)


def open_positions(participant: Participant) -> list[int]:
    """The positions still to answer, in order (the rule both the pages and the rating
    service use)."""
    return [pos for pos, done in batch_progress(participant) if not done]


def item_query(participant: Participant, row: BatchRow) -> tuple[str, list]:
    """The SQL and parameters that read the item of one ``batch_rows`` row with the
    participant's own answer (``item_from`` makes the ``Item`` of its one row). Hand-written:
    the five-table join of a sample runs on every rating page; the rating save runs it in
    the same statement as its write (``services._save_rating``)."""
    if row.kind == "s":
        shown = sql.ShownSql.params(participant.study_id)
        return sql.item_sample(), [*shown, participant.rater_id, row.id]
    return sql.item_check(), [row.id]


def item_from(participant: Participant, row: BatchRow, values: Sequence) -> Item:
    """The ``Item`` of ``row`` from the values ``item_query`` reads (``sql.ItemValues``)."""
    v = sql.ItemValues(*values)
    versions = (v.setup_version, v.story_version, v.sense_version)
    item = Item(
        position=row.position,
        homonym=v.homonym,
        precontext=v.precontext,
        sentence=v.sentence,
        ending=v.ending,
        meaning=v.meaning or "",
        example_sentence=v.example_sentence or "",
        score=v.score,
        nonsensical=bool(v.nonsensical),
        comment=v.comment or "",
        started_at=None,
        sample_id=row.sample_id,
        number=row.number,
        other_meaning=v.other_meaning or "",
        text_version=".".join(map(str, versions)) if row.kind == "s" else "",
        question_id=v.question_id,
    )
    return with_kind_details([item], participant.study.task_kind)[0]


def batch_item(participant: Participant, row: BatchRow) -> Item:
    """The item of one ``batch_rows`` row with the participant's own answer, in one query."""
    statement, params = item_query(participant, row)
    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        values = cursor.fetchone()
    return item_from(participant, row, values)


def preview_items(study: Study) -> list[Item]:
    """What a participant's batch would look like, built from the study's samples (one per
    setup, or per word in a one-item-per-word study, in order) with its attention checks
    spread in: a read, nothing is reserved."""
    items: list[Item] = []
    shown: dict[int, Sample] = {}  # one sample per batch unit (``Study.sample_unit``)
    units: set[int] = set()
    samples = Sample.objects.filter(studies=study).with_related().order_by("position")
    for sample in samples.annotate(unit=F(study.sample_unit.removeprefix("sample__"))):
        if sample.unit not in units:
            units.add(sample.unit)
            shown[sample.pk] = sample
            items.append(_sample_item(sample, 0, None))
        if len(items) >= study.samples_per_participant:
            break
    shown_texts.overlay(study.pk, items, shown)
    checks = study.check_questions.filter(as_attention_check=True)
    for n, q in enumerate(checks[: study.attention_checks_per_batch], start=1):
        at = n * len(items) // (study.attention_checks_per_batch + 1)
        items.insert(at, _check_item(AttentionAnswer(question=q, position=0)))
    for pos, item in enumerate(items):
        item.position = pos
        item.number = pos + 1 if item.sample_id else None  # the orders alternate
    return with_kind_details(items, study.task_kind)
