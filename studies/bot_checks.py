"""Bot checks at the start of a study (RAW-C's design, pure).

RAW-C (section 4.3): "After giving consent, participants answered two questions designed to
filter out bots (e.g., 'Which of the following is not a place to swim?', with the correct
answer being 'Chair')"; three participants who failed them were removed. A study with
``Study.bot_checks`` > 0 asks that many questions of this kind on the page after consent,
before any item (``studies.qualification`` draws them per participant, seeded with the site's
secret key; the options are shuffled per participant); one wrong answer screens the
participant out, as a failed qualification test does. The questions are written here (the
first is the paper's example, the others ours): offline and self-hosted, no external service.
They keep out scripts that click at random (four options: a random click passes two questions
1 time in 16), not a determined adversary who reads this file.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class BotQuestion:
    key: str
    text: str
    options: tuple[str, ...]
    answer: str  # the one right option


POOL: tuple[BotQuestion, ...] = (
    BotQuestion(
        "swim",
        "Which of the following is not a place to swim?",
        ("Pool", "Lake", "Chair", "Ocean"),
        "Chair",
    ),
    BotQuestion(
        "animal",
        "Which of the following is not an animal?",
        ("Dog", "Horse", "Spoon", "Cat"),
        "Spoon",
    ),
    BotQuestion(
        "colour",
        "Which of the following is not a colour?",
        ("Red", "Blue", "Table", "Green"),
        "Table",
    ),
    BotQuestion(
        "eat",
        "Which of the following can you not eat?",
        ("Bread", "Apple", "Brick", "Cheese"),
        "Brick",
    ),
    BotQuestion(
        "day",
        "Which of the following is not a day of the week?",
        ("Monday", "Friday", "April", "Sunday"),
        "April",
    ),
    BotQuestion(
        "wear",
        "Which of the following is not something you wear?",
        ("Shirt", "Shoe", "Hat", "Cloud"),
        "Cloud",
    ),
    BotQuestion(
        "number",
        "Which of the following is not a number?",
        ("Seven", "Twelve", "Carrot", "Three"),
        "Carrot",
    ),
    BotQuestion(
        "instrument",
        "Which of the following is not a musical instrument?",
        ("Piano", "Violin", "Drum", "Pillow"),
        "Pillow",
    ),
    BotQuestion(
        "kitchen",
        "Which of the following is not found in a kitchen?",
        ("Oven", "Fridge", "Volcano", "Sink"),
        "Volcano",
    ),
    BotQuestion(
        "sky",
        "Which of the following is not seen in the sky?",
        ("Sun", "Moon", "Cloud", "Carpet"),
        "Carpet",
    ),
)
BY_KEY = {q.key: q for q in POOL}
MAX_CHECKS = len(POOL)


@dataclass(frozen=True)
class Drawn:
    """A bot question as one participant sees it: its options in the order shown."""

    question: BotQuestion
    options: tuple[str, ...]

    @property
    def key(self) -> str:
        return self.question.key


def draw(n: int, seed: bytes) -> list[Drawn]:
    """``n`` different questions (at most the pool's), each with its options shuffled, in a
    random order given by ``seed``."""
    rng = random.Random(seed)
    chosen = rng.sample(POOL, k=min(max(n, 0), len(POOL)))
    return [Drawn(q, tuple(rng.sample(q.options, k=len(q.options)))) for q in chosen]


def chosen(drawn: Sequence[Drawn], answers: Mapping[str, str]) -> dict[str, str | None]:
    """The option each answer picks, by question key; None for a missing answer or one that
    is not an option of its question."""
    return {d.key: answers.get(d.key) if answers.get(d.key) in d.options else None for d in drawn}


def grade(drawn: Sequence[Drawn], answers: Mapping[str, str]) -> bool:
    """Whether every drawn question got its right option (no questions: passed)."""
    picked = chosen(drawn, answers)
    return all(picked[d.key] == d.question.answer for d in drawn)
