"""Study fixtures built from tests/factories.py: unrated AmbiStory setups and a study."""

from __future__ import annotations

from annotations.importers import REDACTED, ambistory_import, parse_ambistory
from annotations.models import Rater, Sample
from studies import services
from studies.bot_checks import POOL
from studies.models import Participant, Slot, Study
from tests.factories import ambistory_setup

PID = "5f0a1b2c3d4e5f6a7b8c9d0e"


def pid(n: int) -> str:
    return f"{n:024x}"


def unrated_setups(n_setups: int, split: str = "study") -> list[Sample]:
    """``n_setups`` setups x 6 samples with no ratings (labels redacted, as for a new split)."""
    data = {}
    for i in range(n_setups):
        for sid, raw in ambistory_setup(i * 6, homonym=f"word{i}").items():
            data[sid] = {**raw, "choices": REDACTED, "average": REDACTED}
    ambistory_import(samples=parse_ambistory(data, allow_redacted=True), split=split)
    return list(Sample.objects.filter(split__name=split).order_by("position"))


def open_study(
    n_setups: int = 4,
    *,
    per_participant: int = 4,
    ratings: int = 2,
    checks: int = 1,
    slug: str = "demo",
    minutes: int = 60,
    samples: list[Sample] | None = None,
    **fields,
) -> Study:
    samples = samples if samples is not None else unrated_setups(n_setups)
    study = services.study_create(
        title="Plausibility demo",
        slug=slug,
        samples=samples,
        ratings_per_sample=ratings,
        samples_per_participant=per_participant,
        attention_checks_per_batch=checks,
        time_limit_minutes=minutes,
        completion_code="DONE1234",
        screenout_code="OUT98765",
        **fields,
    )
    return services.study_open(study=study)


# every bot check's right option by question key (studies.bot_checks; a study asks a few)
BOT_ANSWERS = {q.key: q.answer for q in POOL}


def participant_row(study: Study, n: int, **fields) -> Participant:
    """A participant row of ``study`` made directly, with its own participant rater and the
    PID ``pid(n)``, for tests that need participants in given states without walking the
    arrival (``fields`` as ``Participant`` takes them; ``started_at`` is set on create)."""
    rater = Rater.objects.create(kind=Rater.Kind.PARTICIPANT, pseudonym=f"p-{study.pk}-{n}")
    return Participant.objects.create(study=study, rater=rater, prolific_pid=pid(n), **fields)


def qualify(participant: Participant) -> None:
    answers = {q.pk: q.expected for q in participant.study.check_questions.all()}
    assert services.participant_qualify(
        participant=participant, answers=answers, bot_answers=BOT_ANSWERS
    )


def rate_all(participant: Participant, *, check_score: int | None = None) -> None:
    """Answer every item: samples with 3, checks with their expected score (or check_score)."""
    from studies.selectors import batch_items

    checks = {a.position: a.question for a in participant.attention_answers.all()}
    for item in batch_items(participant):
        score = 3
        if item.position in checks:
            score = check_score if check_score is not None else checks[item.position].expected
        services.item_save(
            participant=participant, position=item.position, answer=services.Answer(score=score)
        )


def held_setups(participant: Participant) -> list[int]:
    return list(Slot.objects.filter(participant=participant).values_list("setup_id", flat=True))


def wait_for_connections(needed: int, timeout: float = 120.0) -> None:
    """Wait until PostgreSQL has ``needed`` free connections (plus a margin) for a test's
    threads: the other pytest-xdist worker's test may hold some for a while (max_connections
    is 100 by default). Fails naming who holds them if none come free within ``timeout``."""
    import time

    from django.db import connection

    if connection.vendor != "postgresql":
        return
    margin = 5
    deadline = time.monotonic() + timeout
    while True:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT current_setting('max_connections')::int - count(*) FROM pg_stat_activity"
            )
            free = cursor.fetchone()[0]
            if free >= needed + margin:
                return
            if time.monotonic() > deadline:
                cursor.execute(
                    "SELECT datname, application_name, state, count(*) FROM pg_stat_activity"
                    " GROUP BY 1, 2, 3 ORDER BY 4 DESC"
                )
                holders = cursor.fetchall()
                raise AssertionError(
                    f"{needed} connections needed, {free} free after {timeout:.0f} s: {holders}"
                )
        time.sleep(0.5)


def n_labels(record: dict) -> int:
    """How many ratings an exported AmbiStory record holds: 0 for a sample without any,
    which the export writes with its labels redacted as the official test files do."""
    if record["choices"] == REDACTED:
        assert all(record[k] == REDACTED for k in ("average", "stdev", "nonsensical"))
        return 0
    return len(record["choices"])
