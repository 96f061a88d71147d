"""A small usage-usage word for the crowd-study tests: ``n`` uses of "plane", each a context
of three sentences with the target marked in the middle one, and no judgments."""

from __future__ import annotations

from studies import services
from studies.models import Participant
from wug.models import GraphType, Use, Word

from ..studies.helpers import pid

USES_COLUMNS = [
    "lemma",
    "identifier",
    "grouping",
    "context",
    "indexes_target_token",
    "indexes_target_sentence",
]
JUDGMENTS_COLUMNS = [
    "identifier1",
    "identifier2",
    "annotator",
    "judgment",
    "comment",
    "lemma",
    "round",
]


def small_word(n: int = 8, name: str = "plane_test") -> Word:
    word = Word.objects.create(
        name=name,
        lemma="plane",
        graph_type=GraphType.USAGE_USAGE,
        layout={
            "uses.csv": {"columns": USES_COLUMNS, "newline": "\n"},
            "judgments.csv": {"columns": JUDGMENTS_COLUMNS, "newline": "\n"},
        },
        digest="test",
    )
    for i in range(n):
        before = f"Background sentence number {i}. "
        sentence = f"The plane number {i} was in the sky."
        context = before + sentence + " Another sentence after it."
        t0 = len(before) + 4
        Use.objects.create(
            word=word,
            position=i,
            identifier=f"u{i}",
            grouping=str(1 + i % 2),
            context=context,
            target_start=t0,
            target_end=t0 + 5,
            sentence_start=len(before),
            sentence_end=len(before) + len(sentence),
            fields={
                "lemma": "plane",
                "identifier": f"u{i}",
                "grouping": str(1 + i % 2),
                "context": context,
                "indexes_target_token": f"{t0}:{t0 + 5}",
                "indexes_target_sentence": f"{len(before)}:{len(before) + len(sentence)}",
            },
        )
    return word


def arrive(study, n: int) -> Participant:
    participant = services.participant_arrive(study=study, pid=pid(n))
    assert services.participant_qualify(participant=participant, answers={})
    return participant
