"""Gold pairs of use-pair crowd studies: use pairs with a known answer, asked as the study's
attention checks (``CheckQuestion`` + ``GoldPair``). Some are chosen automatically from the
imported graph (``wug.sampling.gold_pairs``); a researcher adds their own (two use ids and
the expected answer), validated here with errors naming the field or use id. A set of golds
that one key passes in full (``wug.sampling.constant_keys``, e.g. only identity pairs) is
reported on the word page (``wug.crowd_reads.gold_warning``), where a researcher also removes
gold pairs (``gold_pair_remove``). Both only while the study is a draft.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.db.models import Max

from studies import services as study_services
from studies.models import CheckQuestion, Study
from wug.graph import pair_key
from wug.models import CrowdStudy, GoldPair, Use, UsePair, Word
from wug.texts import target_window


class CrowdError(ValueError):
    """A crowd-study write that cannot be done as asked; nothing was written."""


LABEL_CHARS = 160  # of a use's sentence in a pair's setup text (researchers' pages)
# the tolerance a gold pair gets unless the researcher sets one: 1 and 4 pass within 1,
# a middle answer only itself (within 1 it would pass three of the four points)
DEFAULT_TOLERANCE = {1: 1, 2: 0, 3: 0, 4: 1}
MAX_TOLERANCE = 1


def use_label(use: Use) -> str:
    """A use as the researchers' pages show a pair's setup: its identifier and the target's
    sentence around it (short: the setup's texts are in a unique index)."""
    text, _ = target_window(
        use.context,
        (use.target_start, use.target_end),
        (use.sentence_start, use.sentence_end),
        max_chars=LABEL_CHARS,
    )
    return f"{use.identifier}: {text}"


def gold_fields(word: Word, a: Use, b: Use, expected: int, tolerance: int) -> dict:
    """A gold pair's check question fields."""
    return {
        "homonym": word.lemma,  # its length checked with the study's words (wug.crowd)
        "precontext": use_label(a),
        "sentence": use_label(b),
        "meaning": f"Gold pair of {word.name}: {a.identifier} ~ {b.identifier}",
        "expected": expected,
        "tolerance": tolerance,
        "in_qualification": False,
        "as_attention_check": True,
    }


@dataclass(frozen=True)
class GoldSpec:
    """A researcher's gold pair as given (identifiers and numbers not yet checked)."""

    use1: str
    use2: str
    expected: int
    tolerance: int | None = None
    word: str = ""  # needed only when the study has several words


def parse_gold(text: str) -> GoldSpec:
    """``[word:]use1,use2,answer[,tolerance]`` (the command's ``--gold``)."""
    word, _, rest = text.rpartition(":") if ":" in text else ("", "", text)
    parts = [p.strip() for p in rest.split(",")]
    if len(parts) not in (3, 4):
        raise CrowdError(f"gold {text!r}: write [word:]use1,use2,answer[,tolerance]")
    numbers = []
    for name, value in zip(("answer", "tolerance"), parts[2:]):
        try:
            numbers.append(int(value))
        except ValueError:
            raise CrowdError(f"gold {text!r}: {name}: {value!r} is not a whole number") from None
    tolerance = numbers[1] if len(numbers) > 1 else None
    return GoldSpec(parts[0], parts[1], numbers[0], tolerance, word.strip())


def checked_gold(words: list[Word], spec: GoldSpec) -> tuple[Word, Use, Use, int, int]:
    """(word, use1, use2, expected, tolerance) of a researcher's gold pair, or a
    ``CrowdError`` naming the field or use id."""
    if spec.word:
        word = next((w for w in words if w.name == spec.word), None)
        if word is None:
            raise CrowdError(f"word: {spec.word!r} is not a word of this study")
    elif len(words) == 1:
        word = words[0]
    else:
        raise CrowdError("word: the study has several words; name the gold pair's word")
    uses = {
        u.identifier: u
        for u in Use.objects.filter(word=word, identifier__in=[spec.use1, spec.use2])
    }
    for field, identifier in (("use1", spec.use1), ("use2", spec.use2)):
        if identifier not in uses:
            raise CrowdError(f"{field}: {word.name} has no use {identifier!r}")
    if spec.expected not in DEFAULT_TOLERANCE:
        raise CrowdError(
            f"expected: {spec.expected} is no answer a gold pair can expect (1 unrelated .. 4 "
            "identical; 'cannot decide' never passes a check)"
        )
    tolerance = DEFAULT_TOLERANCE[spec.expected] if spec.tolerance is None else spec.tolerance
    if not 0 <= tolerance <= MAX_TOLERANCE:
        raise CrowdError(f"tolerance: {tolerance} is outside 0-{MAX_TOLERANCE}")
    if spec.use1 == spec.use2 and spec.expected != 4:
        raise CrowdError(f"expected: a use paired with itself ({spec.use1!r}) is identical: 4")
    a, b = sorted((uses[spec.use1], uses[spec.use2]), key=lambda u: u.pk)
    return word, a, b, spec.expected, tolerance


def _refuse_taken(crowd: CrowdStudy, word: Word, a: Use, b: Use) -> None:
    key = pair_key(a.identifier, b.identifier)
    golds = GoldPair.objects.filter(question__study_id=crowd.study_id, use1__word=word)
    if any(
        pair_key(x, y) == key for x, y in golds.values_list("use1__identifier", "use2__identifier")
    ):
        raise CrowdError(
            f"use2: {a.identifier} ~ {b.identifier} is a gold pair of this study already"
        )
    asked = UsePair.objects.filter(round__crowd_study=crowd, use1__in=[a, b], use2__in=[a, b])
    if asked.exists():
        raise CrowdError(
            f"use2: {a.identifier} ~ {b.identifier} is an ordinary pair of this study (a gold "
            "pair is never asked as one)"
        )


def _refuse_unless_draft(study: Study) -> None:
    """Gold pairs change only while the study is a draft: no participant has been given one
    as a check yet (an answered check keeps its question, ``AttentionAnswer``)."""
    if study.status != Study.Status.DRAFT:
        raise CrowdError("Gold pairs are added and removed while the study is a draft.")


@transaction.atomic
def gold_pair_add(*, crowd_study: CrowdStudy, spec: GoldSpec) -> GoldPair:
    """Add a researcher's gold pair to a draft crowd study as an attention check (a study
    without any gets one check per participant)."""
    crowd = CrowdStudy.objects.select_for_update().get(pk=crowd_study.pk)
    study = crowd.study
    _refuse_unless_draft(study)
    word, a, b, expected, tolerance = checked_gold(list(crowd.words.all()), spec)
    _refuse_taken(crowd, word, a, b)
    order = (study.check_questions.aggregate(m=Max("order"))["m"] or 0) + 1
    question = CheckQuestion.objects.create(
        study=study, order=order, **gold_fields(word, a, b, expected, tolerance)
    )
    if study.attention_checks_per_batch == 0:
        study_services.study_update(study=study, attention_checks_per_batch=1)
    return GoldPair.objects.create(question=question, use1=a, use2=b)


@transaction.atomic
def gold_pair_remove(*, crowd_study: CrowdStudy, gold: GoldPair) -> None:
    """Remove a gold pair (an identity pair too) and its check question from a draft crowd
    study; the checks per participant drop to the attention checks left, as a new study
    asks no more than it has."""
    crowd = CrowdStudy.objects.select_for_update().get(pk=crowd_study.pk)
    study = crowd.study
    _refuse_unless_draft(study)
    row = GoldPair.objects.filter(pk=gold.pk, question__study_id=study.pk).first()
    if row is None:
        raise CrowdError(f"{gold.use1} ~ {gold.use2} is not a gold pair of {study.title}")
    CheckQuestion.objects.filter(pk=row.question_id).delete()  # the gold pair with it
    left = study.check_questions.filter(as_attention_check=True).count()
    if study.attention_checks_per_batch > left:
        study_services.study_update(study=study, attention_checks_per_batch=left)
