"""Every SQL statement of the studies app written by hand, in one place.

They run on the participant's hot path (arrival, every rating page and save), where the
ORM's per-query CPU was measured to cost a third to three quarters of the request; each
builder says which caller runs it. ``tests/studies/test_sql.py`` parses every statement
:func:`statements` lists and compares each column it names with the models' fields, and an
``INSERT``'s column list with all of its table's columns: a column added to ``Rating`` that
the rating save leaves out fails that test, not a study. A new statement goes here, and
into :func:`statements`.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache, wraps
from typing import NamedTuple

from django.db import connection

from annotations.data_versions import bump_sql
from annotations.models import (
    Homonym,
    Rating,
    Sample,
    Sense,
    Setup,
    Story,
    TextVersion,
)
from annotations.text_versions import KINDS

from .list_models import ListDesign
from .models import AttentionAnswer, CheckQuestion, Participant, Slot, Study, StudyText


def table(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def built_once(builder):
    """A statement builder whose result is kept per database vendor and arguments: every
    statement here is a function of those alone, and the participant's requests asked for
    the same few dozen strings thousands of times a minute (the participant read's column
    list alone was 5 % of the web workers' CPU under load, py-spy)."""
    kept = cache(lambda vendor, *args, **kwargs: builder(*args, **kwargs))

    @wraps(builder)
    def statement(*args, **kwargs):
        return kept(connection.vendor, *args, **kwargs)

    statement.cache_clear = kept.cache_clear  # type: ignore[attr-defined]
    return statement


# --- the texts a study shows (``shown_texts``) ------------------------------------------


class ShownSql(NamedTuple):
    """SQL pieces over a sample's setup ``st``, story ``sy`` and sense ``se`` (left
    joined): ``texts`` selects precontext, sentence, ending, gloss and example sentence as
    the study shows them, ``versions`` their three version numbers, and ``joins`` (three
    ``%s``, each the study's id) goes after the sense's join."""

    texts: str
    versions: str
    joins: str

    @staticmethod
    def params(study_id: int) -> list[int]:
        return [study_id] * 3


@built_once
def shown_sql() -> ShownSql:
    pins, stored = table(StudyText), table(TextVersion)
    joins = ""
    for n, (kind, alias) in enumerate(zip(KINDS, ("st", "sy", "se")), start=1):
        joins += (
            f" LEFT JOIN {pins} p{n} ON p{n}.study_id = %s AND p{n}.kind = '{kind}'"
            f" AND p{n}.object_id = {alias}.id LEFT JOIN {stored} t{n} ON t{n}.kind = '{kind}'"
            f" AND t{n}.object_id = {alias}.id AND t{n}.version = p{n}.version"
        )
    columns = [
        ("t1", "st", "precontext"),
        ("t1", "st", "sentence"),
        ("t2", "sy", "ending"),
        ("t3", "se", "gloss"),
        ("t3", "se", "example_sentence"),
    ]
    # ``->>`` reads a JSON member as text on PostgreSQL (jsonb) and SQLite (3.38+) alike
    texts = ", ".join(f"COALESCE({t}.text ->> '{name}', {o}.{name})" for t, o, name in columns)
    versions = (
        "COALESCE(p1.version, st.version), COALESCE(p2.version, sy.version),"
        " COALESCE(p3.version, se.version, 1)"
    )
    return ShownSql(texts, versions, joins)


# --- holds (``holds``): whose batch is held, the rule's one SQL spelling ------------------

_P = Participant._meta.db_table  # unaliased: the ORM's filters on Participant name it so
_STARTED, _QUALIFIED = Participant.Status.STARTED.value, Participant.Status.QUALIFIED.value


@built_once
def unqualified_held() -> str:
    """A condition on a participant row: its batch is held before it qualified
    (``Participant.is_late``'s rule; never NULL, so it may be negated). Params
    (``holds._held_params``): consented since, now, now. ``holds`` filters querysets with
    it and counts with the statements below."""
    return (
        f"({_P}.status = '{_STARTED}' AND {_P}.started_at >= %s"
        f" AND ({_P}.held_until IS NULL OR {_P}.held_until >= %s)"
        f" AND ({_P}.lapse_at IS NULL OR {_P}.lapse_at >= %s))"
    )


@built_once
def holding() -> str:
    """A condition on a participant row: its batch is held, qualified or not. Params:
    ``unqualified_held``'s, then qualified since."""
    return f"({unqualified_held()} OR ({_P}.status = '{_QUALIFIED}' AND {_P}.started_at >= %s))"


@built_once
def unqualified_per_client() -> str:
    """Every consent: a study's holds before qualifying, per client (params: study id,
    then ``unqualified_held``'s)."""
    return (
        f"SELECT client, count(*) FROM {_P} WHERE study_id = %s AND {unqualified_held()}"
        " GROUP BY client"
    )


@built_once
def client_holds() -> str:
    """Every consent with a client: its holds in the study, all and before qualifying
    (params: study id, client, then ``holding``'s)."""
    return (
        f"SELECT count(*), coalesce(sum(CASE WHEN status = '{_STARTED}' THEN 1 ELSE 0 END), 0)"
        f" FROM {_P} WHERE study_id = %s AND client = %s AND {holding()}"
    )


# --- arrival: reserving a batch of slots (``assignment``) ---------------------------------

_SLOTS = Slot._meta.db_table  # a plain identifier: these reads name it as is


# The columns a batch may take one slot of at most (``assignment.batch_unit``).
UNITS = ("setup_id", "word_id")


def _unit(unit: str) -> str:
    if unit not in UNITS:
        raise ValueError(f"unknown batch unit {unit!r}")
    return unit


@built_once
def slot_free_per_setup(unit: str = "setup_id") -> str:
    """Per unit of a study: its free slots and their lowest number (params: study id)."""
    unit = _unit(unit)
    return (
        f"SELECT {unit}, count(*), min(number) FROM {_SLOTS}"
        f" WHERE study_id = %s AND status = 'free' GROUP BY {unit}"
    )


@built_once
def slot_lowest(n_setups: int, unit: str = "setup_id") -> str:
    """The free slots at the lowest free number of each of ``n_setups`` units (params:
    study id, then the units). Read from the slots themselves, not from a count's lowest
    number, which may be older (``studies.free_counts``)."""
    unit = _unit(unit)
    marks = ", ".join(["%s"] * n_setups)
    return (
        f"SELECT id, unit, number FROM (SELECT id, {unit} AS unit, number,"
        f" min(number) OVER (PARTITION BY {unit}) AS low FROM {_SLOTS}"
        f" WHERE study_id = %s AND status = 'free' AND {unit} IN ({marks})) AS free"
        " WHERE number = low"
    )


@built_once
def slot_lock_free(n_ids: int) -> str:
    """Those of ``n_ids`` slots still free, locked; rows another transaction holds are
    skipped (where the database can)."""
    marks = ", ".join(["%s"] * n_ids)
    sql = f"SELECT id FROM {_SLOTS} WHERE id IN ({marks}) AND status = 'free'"
    if connection.features.has_select_for_update_skip_locked:
        sql += " FOR UPDATE SKIP LOCKED"
    return sql


@built_once
def slot_reserve(n_slots: int) -> str:
    """Reserve ``n_slots`` free slots for a participant at their positions, one
    compare-and-set (params: participant id, now, (slot id, position) pairs, slot ids)."""
    cases = " ".join("WHEN %s THEN %s" for _ in range(n_slots))
    marks = ", ".join("%s" for _ in range(n_slots))
    return (
        f"UPDATE {_SLOTS} SET status = 'reserved',"
        f" participant_id = %s, reserved_at = %s, position = CASE id {cases} END"
        f" WHERE id IN ({marks}) AND status = 'free'"
    )


# --- the participant's pages (``selectors``) -----------------------------------------------

# Study columns read along with a participant (its datetimes are left deferred: no page of
# a participant needs them, and these plain columns need no database-specific conversion).
STUDY_FIELDS = tuple(
    f.attname for f in Study._meta.concrete_fields if f.get_internal_type() != "DateTimeField"
)
PARTICIPANT_FIELDS = tuple(f.attname for f in Participant._meta.concrete_fields)
CHECK_QUESTION_FIELDS = tuple(f.attname for f in CheckQuestion._meta.concrete_fields)


def _columns(model, names: tuple[str, ...], alias: str) -> list[str]:
    by_attname = {f.attname: f for f in model._meta.concrete_fields}
    return [f"{alias}.{connection.ops.quote_name(by_attname[n].column)}" for n in names]


def _model_order(model, alias: str) -> str:
    """``model``'s default ordering (``Meta.ordering``) as an ORDER BY list over ``alias``, so
    that a hand-written read returns rows in the order its queryset did."""
    terms = []
    for name in model._meta.ordering:
        field = model._meta.get_field(name.lstrip("-"))  # a name or an attname
        desc = " DESC" if name.startswith("-") else ""
        terms.append(f"{alias}.{connection.ops.quote_name(field.column)}{desc}")
    return ", ".join(terms)


@built_once
def participant_by_pid() -> str:
    """The participant of a study with a Prolific ID (``PARTICIPANT_FIELDS``; params: study
    id, PID), the model's first in its order (one at most: ``one_pid_per_study``, except
    the empty PID of participants whose PID was given back). The arrival link and the
    consent ask."""
    select = _columns(Participant, PARTICIPANT_FIELDS, "p")
    return (
        f"SELECT {', '.join(select)} FROM {table(Participant)} p"
        f" WHERE p.study_id = %s AND p.prolific_pid = %s"
        f" ORDER BY {_model_order(Participant, 'p')} LIMIT 1"
    )


@built_once
def check_questions() -> str:
    """Every check question of a study (``CHECK_QUESTION_FIELDS``, in the model's order;
    params: study id): the arrival link, the consent and the test's answer each read them."""
    select = _columns(CheckQuestion, CHECK_QUESTION_FIELDS, "q")
    return (
        f"SELECT {', '.join(select)} FROM {table(CheckQuestion)} q WHERE q.study_id = %s"
        f" ORDER BY {_model_order(CheckQuestion, 'q')}"
    )


@built_once
def list_design_exists() -> str:
    """1 when a study is assigned by fixed lists (params: study id); every consent asks."""
    return f"SELECT 1 FROM {table(ListDesign)} WHERE study_id = %s LIMIT 1"


@built_once
def participant_select(*, by_token: bool, lock: bool) -> str:
    """A participant's row (``PARTICIPANT_FIELDS``): by id (params: id), or by resume-token
    hash within a study that is not a draft, joined with the study (``STUDY_FIELDS``;
    params: hash, slug); locked ``FOR UPDATE`` when ``lock``."""
    select = _columns(Participant, PARTICIPANT_FIELDS, "p")
    sql = f"FROM {table(Participant)} p"
    where = "p.id = %s"
    if by_token:
        select += _columns(Study, STUDY_FIELDS, "s")
        sql += f" JOIN {table(Study)} s ON s.id = p.study_id"
        where = "p.resume_hash = %s AND s.slug = %s AND s.status <> 'draft'"
    sql = f"SELECT {', '.join(select)} {sql} WHERE {where}"
    if lock and connection.features.has_select_for_update:
        sql += " FOR UPDATE OF p" if by_token else " FOR UPDATE"
    return sql


@built_once
def study_and_participant(*, token: bool = True) -> str:
    """A study that is not a draft (``STUDY_FIELDS``), by slug, with its participant whose
    resume-token hash is given (``PARTICIPANT_FIELDS``, all NULL without one): the arrival
    link and the consent of a browser that has a token but no participant yet find the
    study in the same query (params: hash, slug). Without ``token`` the study alone (params:
    slug): the arrival link of a browser that has none."""
    if not token:
        return (
            f"SELECT {', '.join(_columns(Study, STUDY_FIELDS, 's'))} FROM {table(Study)} s"
            " WHERE s.slug = %s AND s.status <> 'draft'"
        )
    select = _columns(Study, STUDY_FIELDS, "s") + _columns(Participant, PARTICIPANT_FIELDS, "p")
    return (
        f"SELECT {', '.join(select)} FROM {table(Study)} s"
        f" LEFT JOIN {table(Participant)} p ON p.study_id = s.id AND p.resume_hash = %s"
        " WHERE s.slug = %s AND s.status <> 'draft'"
    )


@built_once
def finished_minutes() -> str:
    """PostgreSQL: the count of a study's first 1,000 finished participants and the lower
    median of their times from start to finish, an interval (params: 0.5, study id, the
    finished status)."""
    return (
        "SELECT count(*), percentile_disc(%s) WITHIN GROUP (ORDER BY finished_at - started_at)"
        f" FROM (SELECT started_at, finished_at FROM {table(Participant)}"
        " WHERE study_id = %s AND status = %s AND finished_at IS NOT NULL LIMIT 1000) x"
    )


@built_once
def batch_rows() -> str:
    """Every item of a batch, in order: its slots (with their numbers) and attention checks
    (params: the participant's id twice)."""
    return (
        "SELECT position, done_at IS NOT NULL, 's', id, sample_id, status, number"
        f" FROM {table(Slot)}"
        " WHERE participant_id = %s AND status <> 'free' AND position IS NOT NULL"
        " UNION ALL SELECT position, score IS NOT NULL, 'c', id, NULL, NULL, NULL"
        f" FROM {table(AttentionAnswer)} WHERE participant_id = %s ORDER BY 1"
    )


class ItemValues(NamedTuple):
    """The row :func:`item_sample` and :func:`item_check` read (in this order)."""

    homonym: str
    precontext: str
    sentence: str
    ending: str
    meaning: str | None
    example_sentence: str | None
    score: int | None
    nonsensical: bool | None
    comment: str | None
    other_meaning: str
    setup_version: int | None
    story_version: int | None
    sense_version: int | None
    question_id: int | None


@built_once
def item_sample() -> str:
    """A slot's sample as the study shows it, with the participant's rating (params: the
    study's three ``ShownSql.params``, the rater id, the slot id)."""
    shown = shown_sql()
    return (
        f"SELECT h.form, {shown.texts}, r.score, r.nonsensical, r.comment, '',"
        f" {shown.versions}, NULL FROM {table(Slot)} sl JOIN {table(Sample)} sa"
        " ON sa.id = sl.sample_id"
        f" JOIN {table(Story)} sy ON sy.id = sa.story_id"
        f" JOIN {table(Setup)} st ON st.id = sy.setup_id"
        f" JOIN {table(Homonym)} h ON h.id = st.homonym_id"
        f" LEFT JOIN {table(Sense)} se ON se.id = sa.sense_id{shown.joins}"
        f" LEFT JOIN {table(Rating)} r ON r.sample_id = sl.sample_id AND r.rater_id = %s"
        " WHERE sl.id = %s"
    )


@built_once
def item_check() -> str:
    """An attention check with the participant's answer (params: the answer's id)."""
    return (
        "SELECT q.homonym, q.precontext, q.sentence, q.ending, q.meaning,"
        " q.example_sentence, a.score, a.nonsensical, a.comment, q.other_meaning,"
        " NULL, NULL, NULL, q.id"
        f" FROM {table(AttentionAnswer)} a JOIN {table(CheckQuestion)} q"
        " ON q.id = a.question_id WHERE a.id = %s"
    )


# --- the rating save (``services``) ----------------------------------------------------------

_SLOT_HELD = " WHERE id = %s AND participant_id = %s AND status <> 'free'"


@built_once
def slot_done() -> str:
    """Mark a reserved slot done (compare-and-set; params: now, slot id, participant id)."""
    held = f"{_SLOT_HELD} AND status = 'reserved'"
    return f"UPDATE {table(Slot)} SET status = 'done', done_at = %s{held}"


@built_once
def slot_void_done() -> str:
    """A void slot rated for the first time (params: now, slot id, participant id)."""
    return f"UPDATE {table(Slot)} SET done_at = %s{_SLOT_HELD}"


RATING_CONFLICT = (
    "ON CONFLICT (rater_id, sample_id) DO UPDATE SET score = EXCLUDED.score,"
    " nonsensical = EXCLUDED.nonsensical, comment = EXCLUDED.comment,"
    " updated_at = EXCLUDED.updated_at, setup_version = EXCLUDED.setup_version,"
    " story_version = EXCLUDED.story_version, sense_version = EXCLUDED.sense_version,"
    " sentence_order = EXCLUDED.sentence_order"
)


@built_once
def rating_insert(*, check_shown: bool) -> str:
    """The rating's ``INSERT ... SELECT ... WHERE ...``, to be completed by
    ``RATING_CONFLICT`` (after any condition a caller adds to the WHERE). Params: rater
    id, kind, score, nonsensical, comment, sentence_order, started_at, created_at, updated_at,
    the study's
    ``ShownSql.params``, the sample id, and with ``check_shown`` the three versions the page
    showed (no row is written unless they still match)."""
    texts = shown_sql()
    where = "sa.id = %s"
    if check_shown:
        where += f" AND ({texts.versions}) = (%s, %s, %s)"
    return (
        f"INSERT INTO {table(Rating)}"
        " (sample_id, rater_id, kind, score, nonsensical, comment, sentence_order, position,"
        " started_at, created_at, updated_at, setup_version, story_version, sense_version)"
        f" SELECT sa.id, %s, %s, %s, %s, %s, %s, NULL, %s, %s, %s, {texts.versions} FROM"
        f" {table(Sample)} sa JOIN {table(Story)} sy ON sy.id = sa.story_id"
        f" JOIN {table(Setup)} st ON st.id = sy.setup_id"
        f" LEFT JOIN {table(Sense)} se ON se.id = sa.sense_id{texts.joins} WHERE {where}"
    )


@built_once
def data_bump(*, after: str = "") -> str:
    """The rating's data-version bump (``annotations.data_versions``: the sample's split,
    a shard); params: kind, shard, stamp (``new_stamp``), sample id. With ``after`` (a
    CTE's name) only when that CTE returned a row."""
    source = f"SELECT %s, split_id, %s, 1, %s FROM {table(Sample)} WHERE id = %s" + (
        f" AND EXISTS (SELECT 1 FROM {after})" if after else ""
    )
    return bump_sql(source)


@built_once
def claim_and_rate(claim: str, write: str, item: str | None) -> str:
    """PostgreSQL, one round trip: the slot's claim and the rating's write in one statement,
    the write only when the claim happened (the two counts say which refused), the data
    version's bump (``data_bump``) when the write happened, and with ``item`` the next
    page's item read in it too (another row: the write does not touch it). Params: the
    claim's, the write's, the bump's, the item's."""
    sql = (
        f"WITH claimed AS ({claim} RETURNING id), written AS ({write} AND EXISTS"
        f" (SELECT 1 FROM claimed) {RATING_CONFLICT} RETURNING 1),"
        f" bumped AS ({data_bump(after='written')})"
        " SELECT (SELECT count(*) FROM claimed), (SELECT count(*) FROM written)"
    )
    if item is not None:
        sql += f", nx.* FROM (SELECT 1) one LEFT JOIN ({item}) nx ON true"
    return sql


def statements() -> Iterator[tuple[str, str]]:
    """(name, SQL) of every statement above, in each of its shapes (the column test)."""
    for unit in UNITS:
        yield "slot_free_per_setup", slot_free_per_setup(unit)
        yield "slot_lowest", slot_lowest(2, unit)
    yield "slot_lock_free", slot_lock_free(3)
    yield "unqualified_per_client", unqualified_per_client()
    yield "client_holds", client_holds()
    yield "slot_reserve", slot_reserve(2)
    for by_token in (False, True):
        for lock in (False, True):
            yield "participant_select", participant_select(by_token=by_token, lock=lock)
    yield "participant_by_pid", participant_by_pid()
    yield "check_questions", check_questions()
    yield "list_design_exists", list_design_exists()
    yield "study_and_participant", study_and_participant()
    yield "study_and_participant", study_and_participant(token=False)
    yield "finished_minutes", finished_minutes()
    yield "batch_rows", batch_rows()
    yield "item_sample", item_sample()
    yield "item_check", item_check()
    yield "slot_done", slot_done()
    yield "slot_void_done", slot_void_done()
    yield "data_bump", data_bump()
    for check_shown in (False, True):
        yield "rating_insert", rating_insert(check_shown=check_shown) + " " + RATING_CONFLICT
    write = rating_insert(check_shown=True)
    yield "claim_and_rate", claim_and_rate(slot_done(), write, item_sample())
    yield "claim_and_rate", claim_and_rate(slot_void_done(), write, None)
