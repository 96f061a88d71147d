"""Qualification questions drawn per participant from the study's pool.

The pool is every question of the study marked as a qualification question: the paper's four
stories with either of their two meanings (``defaults.QUALIFICATION`` and
``QUALIFICATION_OTHER_MEANINGS``; the writing variant with its two meanings in either order)
and the study's own. Each participant answers ``Study.questions_per_participant`` of them, at
most one per story (questions with the same word and sentence are one story), in a shuffled
order. The draw is seeded by the participant and the site's secret key, so it is the same on
every reload and cannot be foreseen from outside, and it is stored on the participant
(``qualification_draw``) with the answers, so later edits of the pool do not change what a
participant was asked or how it is graded (a drawn question deleted before the answers come
is replaced by one of another story: ``redraw``). The answer key (``expected``, ``tolerance``) stays
in the database: no participant page, API response, schema or export carries it.
"""

from __future__ import annotations

import hashlib
import hmac
import random
from collections.abc import Sequence

from django.conf import settings

from . import bot_checks
from .models import CheckQuestion, Participant, Study
from .selectors import check_questions, qualification_questions


def story_of(question: CheckQuestion) -> tuple[str, str]:
    """The story a question is about: variants of one story are never drawn together."""
    return question.homonym.strip().casefold(), " ".join(question.sentence.split()).casefold()


def draw(questions: Sequence[CheckQuestion], n: int, seed: bytes) -> list[CheckQuestion]:
    """``n`` questions (0: one per story) from ``questions``, at most one per story, in a
    random order given by ``seed``."""
    stories: dict[tuple[str, str], list[CheckQuestion]] = {}
    for q in sorted(questions, key=lambda q: q.pk):
        stories.setdefault(story_of(q), []).append(q)
    rng = random.Random(seed)
    groups = list(stories.values())
    chosen = rng.sample(groups, k=len(groups) if n <= 0 else min(n, len(groups)))
    return [rng.choice(variants) for variants in chosen]


def redraw(
    questions: Sequence[CheckQuestion], kept: list[CheckQuestion], missing: int, seed: bytes
) -> list[CheckQuestion]:
    """``kept`` followed by ``missing`` (at least 1) more from ``questions``, none of a story
    already in ``kept`` (fewer where the pool has fewer such stories)."""
    taken = {story_of(q) for q in kept}
    return kept + draw([q for q in questions if story_of(q) not in taken], missing, seed)


def seed_for(study_id: int, who: str) -> bytes:
    """A seed no one without the site's secret key can compute."""
    message = f"qualification:{study_id}:{who}".encode()
    return hmac.new(settings.SECRET_KEY.encode(), message, hashlib.sha256).digest()


def participant_questions(participant: Participant) -> list[CheckQuestion]:
    """The questions drawn for ``participant``, in the order shown: the stored draw, or a
    fresh one stored now (the first time the page is shown or the answers are graded).
    Drawn questions deleted since are replaced by as many drawn from the pool's other
    stories (``redraw``), after the ones kept, so the participant answers the full count.
    Concurrent requests draw the same questions (the seed is the participant's), and only
    the first stores them."""
    stored = participant.qualification_draw
    study = participant.study
    seed = seed_for(study.pk, f"participant:{participant.pk}")
    if stored:
        by_id = {q.pk: q for q in check_questions(study)}
        kept = [by_id[pk] for pk in stored if pk in by_id]
        if len(kept) == len(stored):
            return kept
        drawn = redraw(qualification_questions(study), kept, len(stored) - len(kept), seed)
    else:
        drawn = draw(qualification_questions(study), study.questions_per_participant, seed)
    participant.qualification_draw = [q.pk for q in drawn]
    Participant.objects.filter(pk=participant.pk, qualification_draw=stored).update(
        qualification_draw=participant.qualification_draw
    )
    return drawn


def preview_questions(study: Study, user_pk: int | None) -> list[CheckQuestion]:
    """A draw for a researcher's preview: the same for one researcher on every reload (so the
    POST grades what the page showed), stored nowhere."""
    seed = seed_for(study.pk, f"preview:{user_pk}")
    return draw(qualification_questions(study), study.questions_per_participant, seed)


def participant_bots(participant: Participant) -> list[bot_checks.Drawn]:
    """The bot checks of ``participant`` (``Study.bot_checks`` of them), in the order shown
    with their options shuffled: the same on every reload (seeded like the draw above; the
    pool is fixed code, so nothing needs storing until the answers are graded)."""
    seed = seed_for(participant.study_id, f"bots:participant:{participant.pk}")
    return bot_checks.draw(participant.study.bot_checks, seed)


def preview_bots(study: Study, user_pk: int | None) -> list[bot_checks.Drawn]:
    """A researcher's preview's bot checks, the same on every reload for one researcher."""
    return bot_checks.draw(study.bot_checks, seed_for(study.pk, f"bots:preview:{user_pk}"))


def grade(questions: Sequence[CheckQuestion], answers: dict[int, int], kind: str) -> bool:
    """Whether every drawn question has an answer its key accepts in a study of task
    ``kind`` (``CheckQuestion.accepts``: the rule attention checks are graded by)."""
    return all(answers.get(q.pk) is not None and q.accepts(answers[q.pk], kind) for q in questions)
