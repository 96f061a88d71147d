"""Reads of use-pair crowd studies: the crowd's judgments as graph edges and WUG rows, the
rounds' progress, and what the rating page shows of a use pair (``kind_pages`` details).

The crowd's judgments are the valid ratings (``Rating.objects.valid()``: an excluded rater's,
e.g. after a failed gold pair, leave the graph) of the use-pair samples of a word; the
annotator is the rater's pseudonym. They are read live, never copied, so the graph, its
clustering (kept per set of judgments) and the export follow every new rating.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Q

from annotations.models import Rating
from studies.models import Slot
from wug.graph import Judgment as Edge
from wug.models import CrowdStudy, GoldPair, PairRound, UsePair, Word
from wug.sampling import Gold, constant_keys
from wug.texts import UseParts


@dataclass(frozen=True)
class CrowdJudgment:
    use1: str
    use2: str
    annotator: str
    score: int
    comment: str
    round: int


def crowd_judgments(word: Word) -> list[CrowdJudgment]:
    """The crowd's valid judgments of ``word``'s use pairs, oldest first (one query)."""
    rows = (
        Rating.objects.valid()
        .filter(sample__use_pair__word=word)
        .order_by("created_at", "id")
        .values_list(
            "sample__use_pair__use1__identifier",
            "sample__use_pair__use2__identifier",
            "rater__pseudonym",
            "score",
            "comment",
            "sample__use_pair__round__number",
        )
    )
    return [CrowdJudgment(*row) for row in rows]


def crowd_edges(word: Word) -> list[Edge]:
    return [Edge(j.use1, j.use2, j.annotator, j.score) for j in crowd_judgments(word)]


def crowd_rows(word: Word, columns: list[str]) -> list[dict[str, str]]:
    """The crowd's judgments as rows of the word's ``judgments.csv`` (``columns``: its
    columns; one the crowd has no value for stays empty). A comment is put on one line, as
    the format has no quoting."""
    out = []
    for j in crowd_judgments(word):
        values = {
            "identifier1": j.use1,
            "identifier2": j.use2,
            "annotator": j.annotator,
            "judgment": f"{float(j.score):.1f}",
            "comment": " ".join(j.comment.split()),
            "lemma": word.lemma,
            "round": str(j.round),
        }
        out.append({column: values.get(column, "") for column in columns})
    return out


@dataclass(frozen=True)
class RoundProgress:
    number: int
    pairs: int
    wanted: int  # judgments the round's slots ask for
    done: int
    open: int  # slots free or reserved


def round_progress(crowd_study: CrowdStudy) -> list[RoundProgress]:
    """Per round: its pairs, judgments wanted and done, slots still open (one query per
    round at most; rounds are few)."""
    out = []
    for pair_round in PairRound.objects.filter(crowd_study=crowd_study).annotate(
        n_pairs=Count("pairs")
    ):
        counts = open_slots(pair_round)
        out.append(
            RoundProgress(
                pair_round.number,
                pair_round.n_pairs,
                counts["wanted"],
                counts["done"],
                counts["open"],
            )
        )
    return out


def open_slots(pair_round: PairRound) -> dict[str, int]:
    """The round's slots: wanted (not void or outdated), done, and open (free or reserved)."""
    slots = Slot.objects.filter(
        study_id=pair_round.crowd_study.study_id,
        sample__use_pair__round=pair_round,
    )
    return slots.aggregate(
        wanted=Count("id", filter=Q(status__in=["free", "reserved", "done"])),
        done=Count("id", filter=Q(status="done")),
        open=Count("id", filter=Q(status__in=["free", "reserved"])),
    )


def pair_details(items: list) -> None:
    """The rating page's details of use-pair items (``kind_pages``): ``item.extra`` gets
    ``uses``, the two uses' parts (background, sentence, marked target), and ``target``
    the first use's target. Samples read their ``UsePair``, gold checks their ``GoldPair``
    (two queries for a whole batch)."""
    samples = [i.sample_id for i in items if i.sample_id is not None]
    questions = [i.question_id for i in items if i.sample_id is None and i.question_id]
    by_sample = {
        p.sample_id: (p.use1, p.use2)
        for p in UsePair.objects.filter(sample_id__in=samples).select_related("use1", "use2")
    }
    by_question = {
        g.question_id: (g.use1, g.use2)
        for g in GoldPair.objects.filter(question_id__in=questions).select_related("use1", "use2")
    }
    for item in items:
        uses = by_sample.get(item.sample_id) if item.sample_id else None
        uses = uses or by_question.get(item.question_id)
        if uses is None:  # a check question written by hand: its two texts, unmarked
            plain = (
                UseParts("", item.precontext, "", "", ""),
                UseParts("", item.sentence, "", "", ""),
            )
            item.extra = {"uses": plain}
            item.target = item.homonym
            continue
        parts = (uses[0].parts, uses[1].parts)
        item.extra = {"uses": parts}
        item.target = parts[0].target or item.homonym


def study_gold_rows(study_id: int) -> list[tuple[int, Gold]]:
    """The study's gold pairs (use identifiers, expected answer, tolerance) by their
    ``GoldPair`` id, which the word page's remove buttons name."""
    rows = (
        GoldPair.objects.filter(question__study_id=study_id)
        .order_by("question__order")
        .values_list(
            "pk",
            "use1__identifier",
            "use2__identifier",
            "question__expected",
            "question__tolerance",
        )
    )
    return [
        (pk, Gold(use1, use2, expected, tolerance)) for pk, use1, use2, expected, tolerance in rows
    ]


def study_golds(study_id: int) -> list[Gold]:
    """The study's gold pairs (use identifiers, expected answer, tolerance)."""
    return [gold for _, gold in study_gold_rows(study_id)]


def gold_warning(golds: list[Gold]) -> str:
    """What the word page says when a participant pressing one key passes every gold pair."""
    if not golds:
        return ""
    keys = constant_keys(golds)
    if not keys:
        return ""
    which = " or ".join(str(k) for k in keys)
    why = (
        "every gold pair is a use paired with itself (the word has no imported pair judged "
        "unanimously unrelated)"
        if all(g.use1 == g.use2 for g in golds)
        else "the gold pairs' answers do not differ enough"
    )
    return (
        f"Pressing {which} every time passes every gold pair: {why}. Add a gold pair of two "
        "unrelated uses (answer 1)."
    )


@dataclass(frozen=True)
class CrowdView:
    """A crowd study of a word as its page lists it."""

    crowd: CrowdStudy
    rounds: list[RoundProgress]
    gold_rows: list[tuple[int, Gold]]  # (GoldPair id, gold)
    gold_warning: str

    @property
    def golds(self) -> list[Gold]:
        return [gold for _, gold in self.gold_rows]

    @property
    def round_open(self) -> bool:
        return bool(self.rounds) and self.rounds[-1].open > 0


def crowd_views_of(word: Word) -> list[CrowdView]:
    studies = CrowdStudy.objects.filter(words=word).select_related("study")
    out = []
    for crowd in studies:
        rows = study_gold_rows(crowd.study_id)
        warning = gold_warning([gold for _, gold in rows])
        out.append(CrowdView(crowd, round_progress(crowd), rows, warning))
    return out
