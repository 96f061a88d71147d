"""Every hand-written SQL statement of studies (``studies.sql``) names only columns its
tables have, and an INSERT names every column of its table: a column added to a model that
a statement misses fails here, not in a study. The reads that replaced querysets return
what the querysets did (rows, order, values)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.apps import apps
from django.utils import timezone

from studies import lists, selectors, services, sql
from studies.models import CheckQuestion, Participant

from .helpers import open_study, pid

KEYWORDS = set(
    """select from where and or not in is null join left on as update set insert into case
    when then end group by order union all for skip locked of exists with returning conflict
    do excluded true false distinct within limit asc desc else over partition""".split()
)


def _columns_by_table() -> dict[str, set[str]]:
    return {
        m._meta.db_table: {f.column for f in m._meta.concrete_fields}
        for m in apps.get_models()
        if m._meta.managed
    }


def problems(statement: str) -> list[str]:
    """What in ``statement`` names a table or column the models do not have."""
    tables = _columns_by_table()
    text = re.sub(r"'[^']*'", "''", statement).replace('"', "").replace("%s", "?")
    found: list[str] = []
    aliases: dict[str, str] = {}
    for name, alias in re.findall(r"(?:FROM|JOIN|INTO|UPDATE)\s+(\w+)(?:\s+(\w+))?", text):
        if name not in tables:
            if name.lower() not in KEYWORDS and not name.isdigit():
                aliases.setdefault(name, "")  # a CTE's name
            continue
        aliases[name] = name
        if alias and alias.lower() not in KEYWORDS:
            aliases[alias] = name
    derived = set(re.findall(r"(\w+)\s+AS\s+\(", text)) | set(re.findall(r"\)\s+(\w+)", text))
    derived |= set(re.findall(r"\bAS\s+(\w+)\b(?!\s*\()", text))  # a derived column or table
    derived = {d for d in derived if d.lower() not in KEYWORDS}
    named = {t for t in aliases.values() if t}
    found += _insert_problems(text, tables)
    for alias, column in re.findall(r"\b(\w+)\.(\w+|\*)", text):
        if alias in derived or alias == "EXCLUDED" or column == "*":
            continue
        table = aliases.get(alias)
        if table is None:
            found.append(f"unknown table or alias {alias}")
        elif table and column not in tables[table]:
            found.append(f"{table} has no column {column}")
    bare = re.sub(r"\b\w+\.(\w+|\*)", " ", text)
    bare = re.sub(r"INSERT INTO \w+\s*\([^)]*\)", " ", bare)
    every = set().union(*(tables[t] for t in named)) if named else set()
    for word in re.findall(r"\b([A-Za-z_]\w*)\b(?!\s*\()", bare):
        if word.lower() in KEYWORDS or word in aliases or word in derived or word in tables:
            continue
        if word not in every:
            found.append(f"no table of the statement has a column {word}")
    return found


def _insert_problems(text: str, tables: dict[str, set[str]]) -> list[str]:
    """Each INSERT (a statement may hold several in its CTEs) lists every column of its
    table but the primary key, and its ``EXCLUDED.x`` (up to the next INSERT) are columns of
    that table."""
    found: list[str] = []
    inserts = list(re.finditer(r"INSERT INTO (\w+)\s*\(([^)]*)\)", text))
    for n, insert in enumerate(inserts):
        table = insert.group(1)
        listed = {c.strip() for c in insert.group(2).split(",")}
        # the primary key is the one column left to the database
        model = next(m for m in apps.get_models() if m._meta.db_table == table)
        missing = tables[table] - listed - {model._meta.pk.column}
        found += [f"INSERT INTO {table} leaves out {c}" for c in sorted(missing)]
        found += [f"{table} has no column {c}" for c in sorted(listed - tables[table])]
        end = inserts[n + 1].start() if n + 1 < len(inserts) else len(text)
        for column in re.findall(r"\bEXCLUDED\.(\w+)", text[insert.start() : end]):
            if column not in tables[table]:
                found.append(f"{table} has no column {column}")
    return found


@pytest.mark.parametrize("name,statement", list(sql.statements()))
def test_every_column_a_statement_names_is_a_model_field(name, statement):
    assert problems(statement) == [], name


def test_every_statement_builder_is_listed_for_this_test():
    public = {
        n
        for n, v in vars(sql).items()
        if callable(v) and getattr(v, "__module__", "") == sql.__name__ and not n.startswith("_")
    }
    helpers = {"table", "shown_sql", "statements", "ShownSql", "ItemValues", "built_once"}
    helpers |= {"unqualified_held", "holding"}  # conditions, parsed in the statements above
    assert public - helpers <= {name for name, _ in sql.statements()}


def test_a_statement_is_built_once_per_vendor_and_arguments():
    calls = []

    @sql.built_once
    def statement(n, *, lock=False):
        calls.append((n, lock))
        return f"SELECT {n}{' FOR UPDATE' if lock else ''}"

    assert statement(2) is statement(2)
    assert statement(2, lock=True) == "SELECT 2 FOR UPDATE"
    assert statement(3) == "SELECT 3"
    assert calls == [(2, False), (2, True), (3, False)]
    statement.cache_clear()
    statement(2)
    assert calls[-1] == (2, False) and len(calls) == 4


def test_a_misspelt_column_and_an_insert_that_misses_a_column_are_found():
    bogus = sql.item_check().replace("a.score", "a.scoore")
    assert "studies_attentionanswer has no column scoore" in problems(bogus)
    short = sql.rating_insert(check_shown=False).replace(" position,", "").replace(" NULL,", "")
    assert "INSERT INTO annotations_rating leaves out position" in problems(short)
    assert "no table of the statement has a column statuz" in problems(
        sql.slot_free_per_setup().replace("status", "statuz")
    )


def _fields(objects) -> list[dict]:
    return [{f.attname: getattr(o, f.attname) for f in o._meta.concrete_fields} for o in objects]


@pytest.mark.django_db
def test_the_arrivals_hand_written_reads_return_what_their_querysets_did():
    study = open_study(4, per_participant=2, ratings=2)
    first = CheckQuestion.objects.filter(study=study).order_by("id").first()
    CheckQuestion.objects.filter(pk=first.pk).update(order=99)  # last by order, first by id
    assert _fields(selectors.check_questions(study)) == _fields(
        CheckQuestion.objects.filter(study_id=study.pk)
    )
    assert selectors.check_questions(study)[-1].pk == first.pk

    arrived = services.participant_arrive(study=study, pid=pid(1))
    found = selectors.participant_by_pid(study, pid(1))
    assert _fields([found]) == _fields([Participant.objects.get(pk=arrived.pk)])
    assert found.study is study  # no second read of the study
    assert selectors.participant_by_pid(study, pid(2)) is None
    # PIDs given back ("") are many: the queryset's first, the latest started
    again = services.participant_arrive(study=study, pid=pid(2))
    earlier = timezone.now() - timedelta(hours=1)
    Participant.objects.filter(pk=arrived.pk).update(prolific_pid="", started_at=earlier)
    Participant.objects.filter(pk=again.pk).update(prolific_pid="")
    latest = Participant.objects.filter(study=study, prolific_pid="").first()
    assert selectors.participant_by_pid(study, "").pk == latest.pk == again.pk

    assert lists.uses_lists(study) is False
    listed = open_study(10, per_participant=10, ratings=1, slug="by-lists", assignment="lists")
    assert lists.uses_lists(listed) is True
