"""Use-pair (DURel) crowd studies: the writes. A researcher starts a study of one or more
usage-usage words; each round samples use pairs as DWUG was built (``wug.sampling``: round 1
random pairs, later rounds within and across the current clusters until the graph is
connected enough) and adds them to the study as samples of task kind ``use_pair``, so each
round is a new batch of slots on the studies' assignment machinery. Gold pairs (known
answers) are the study's attention checks. The crowd's ratings feed the word's graph as
they come (``wug.crowd_reads``).

A pair is one sample at most (``UsePair``: unique, uses in id order), and one setup, so the
slots' one-setup-per-participant constraint and the ratings' one-per-rater-and-sample keep
anyone from judging a pair twice; a round never samples a pair already asked (judged,
imported, sampled in an earlier round, or gold).
"""

from __future__ import annotations

from django.db import transaction
from django.utils.text import slugify

from annotations.import_limits import length_problem
from annotations.importers import homonym_ids, positions_after, stories_without_ending
from annotations.models import Dataset, Homonym, Sample, Split, TaskKind
from studies import services as study_services
from studies.models import CheckQuestion, Study
from wug.analysis import word_clustering, word_judgments
from wug.crowd_gold import CrowdError, GoldSpec, checked_gold, gold_fields, use_label
from wug.crowd_reads import open_slots
from wug.graph import CANNOT_DECIDE, pair_key
from wug.models import CrowdStudy, GoldPair, GraphType, PairRound, Use, UsePair, Word
from wug.sampling import Criteria, Pair, connected_enough, first_round, gold_pairs, next_round


def words_named(names: list[str]) -> list[Word]:
    """The words of these names (each once), or a ``CrowdError`` naming the unknown ones."""
    names = list(dict.fromkeys(n for n in names if n))
    words = list(Word.objects.filter(name__in=names))
    missing = [n for n in names if n not in {w.name for w in words}]
    if missing:
        raise CrowdError(f"words: no such word {', '.join(map(repr, missing))} (import_wug first)")
    return words


def _checked_words(words: list[Word]) -> list[Word]:
    if not words:
        raise CrowdError("Choose at least one word.")
    for word in words:
        if word.graph_type != GraphType.USAGE_USAGE:
            raise CrowdError(f"{word.name}: a use-pair study needs a usage-usage graph")
        if Use.objects.filter(word=word).count() < 2:
            raise CrowdError(f"{word.name}: a use-pair study needs at least two uses")
        problem = length_problem(word.lemma, Homonym, "form")  # the pairs' homonym
        if problem:
            raise CrowdError(f"{word.name}: lemma {problem} (a use-pair study's homonym)")
    return sorted(words, key=lambda w: w.name)


def _gold_questions(
    words: list[Word], n: int, seed: int, given: list[GoldSpec]
) -> list[tuple[dict, Use, Use]]:
    """(check question fields, use1, use2) of the researcher's gold pairs (``given``,
    checked) and automatic ones to make ``n`` in all (``wug.sampling.gold_pairs``)."""
    out: list[tuple[dict, Use, Use]] = []
    taken: dict[int, set] = {w.pk: set() for w in words}
    for spec in given:
        word, a, b, expected, tolerance = checked_gold(words, spec)
        key = pair_key(a.identifier, b.identifier)
        if key in taken[word.pk]:
            raise CrowdError(f"use2: {a.identifier} ~ {b.identifier} is given twice as a gold pair")
        taken[word.pk].add(key)
        out.append((gold_fields(word, a, b, expected, tolerance), a, b))
    for k, word in enumerate(words):
        uses = {u.identifier: u for u in Use.objects.filter(word=word)}
        share = -(-(n - len(out)) // (len(words) - k))  # the rest, spread over the words
        golds = gold_pairs(
            list(uses), word_judgments(word), max(0, share), seed=seed, taken=taken[word.pk]
        )
        for gold in golds:
            a, b = uses[gold.use1], uses[gold.use2]
            out.append((gold_fields(word, a, b, gold.expected, gold.tolerance), a, b))
    return out


@transaction.atomic
def crowd_study_create(
    *,
    words: list[Word],
    title: str,
    slug: str,
    pairs_per_round: int = 30,
    judgments_per_pair: int = 3,
    pairs_per_participant: int = 20,
    gold_pairs_total: int = 6,
    gold_per_participant: int = 2,
    seed: int = 0,
    gold: list[GoldSpec] | None = None,
    by=None,
) -> CrowdStudy:
    """A draft study of task kind ``use_pair`` over ``words`` with its gold pairs as
    attention checks (the researcher's ``gold``, then automatic ones up to
    ``gold_pairs_total``) and round 1 of random pairs (``crowd_round_add``); the researcher
    opens it on the study page."""
    words = _checked_words(words)
    if pairs_per_round < 1 or judgments_per_pair < 1 or pairs_per_participant < 1:
        raise CrowdError(
            "Pairs per round, judgments per pair and pairs per participant must be at least 1."
        )
    if Study.objects.filter(slug=slug).exists():
        raise CrowdError(f"A study with the address {slug!r} exists already.")
    golds = _gold_questions(words, gold_pairs_total, seed, gold or [])
    study = study_services.study_create(
        title=title,
        slug=slug,
        samples=[],
        by=by,
        task_kind=TaskKind.USE_PAIR,
        ratings_per_sample=judgments_per_pair,
        samples_per_participant=pairs_per_participant,
        attention_checks_per_batch=min(gold_per_participant, len(golds)),
        questions=[fields for fields, _, _ in golds],
    )
    questions = CheckQuestion.objects.filter(study=study).order_by("order")
    GoldPair.objects.bulk_create(
        GoldPair(question=q, use1=a, use2=b) for q, (_, a, b) in zip(questions, golds)
    )
    crowd = CrowdStudy.objects.create(
        study=study,
        pairs_per_round=pairs_per_round,
        pairs_per_participant=pairs_per_participant,
        seed=seed,
    )
    crowd.words.set(words)
    crowd_round_add(crowd_study=crowd)
    return crowd


def _asked(word: Word, crowd_study: CrowdStudy) -> tuple[set[Pair], set[Pair]]:
    """(judged, asked): the pairs with a decided judgment (imported or crowd), and every
    pair already asked: judged (0 too), sampled in any round, or a gold pair."""
    judgments = word_judgments(word)
    judged = {pair_key(j.use1, j.use2) for j in judgments if j.score != CANNOT_DECIDE}
    asked = {pair_key(j.use1, j.use2) for j in judgments}
    asked |= {
        pair_key(a, b)
        for a, b in UsePair.objects.filter(word=word).values_list(
            "use1__identifier", "use2__identifier"
        )
    }
    asked |= {
        pair_key(a, b)
        for a, b in GoldPair.objects.filter(question__study_id=crowd_study.study_id).values_list(
            "use1__identifier", "use2__identifier"
        )
    }
    return judged, asked


def round_pairs(
    word: Word, crowd_study: CrowdStudy, number: int, criteria: Criteria | None = None
) -> list[Pair]:
    """The pairs round ``number`` asks of ``word`` (no writes): round 1 random pairs
    (``first_round``), later rounds ``next_round`` from the current clustering; none once
    the word is connected enough (``connected_enough``) after round 1."""
    criteria = criteria or Criteria()
    n, seed = crowd_study.pairs_per_round, crowd_study.seed + number
    uses = sorted(Use.objects.filter(word=word).values_list("identifier", flat=True))
    judged, asked = _asked(word, crowd_study)
    if number == 1:
        taken = sum(1 for a, b in asked if a != b)  # identity gold pairs are never drawn
        fresh = [p for p in first_round(uses, n + taken, seed=seed) if p not in asked]
        return fresh[:: max(1, len(fresh) // n)][:n] if len(fresh) > n else fresh
    labels = word_clustering(word).labels
    if connected_enough(uses, labels, judged, criteria):
        return []
    return next_round(uses, labels, asked, n, seed=seed, criteria=criteria)


def _word_split(word: Word) -> Split:
    """The split of the word's pairs (``pairs`` of the dataset ``wug-<id>-<name>``)."""
    dataset, _ = Dataset.objects.get_or_create(
        name=f"wug-{word.pk}-{slugify(word.name)}"[:64],
        defaults={"title": f"Use pairs of {word.name}"[:200], "task_kind": TaskKind.USE_PAIR},
    )
    return Split.objects.get_or_create(dataset=dataset, name="pairs")[0]


def _uses_of(word: Word, pairs: list[Pair]) -> list[list[Use]]:
    """Each pair's two uses, in id order (``UsePair``'s)."""
    uses = {u.identifier: u for u in Use.objects.filter(word=word)}
    return [sorted((uses[a], uses[b]), key=lambda u: u.pk) for a, b in pairs]


def _samples(pair_round: PairRound, chosen: list[tuple[Word, list[Pair]]]) -> list[Sample]:
    """One sample and ``UsePair`` per pair of every word, on the pair's setup and story (its
    uses' labels under the word's lemma; setups are unique by those texts, so an existing
    one is reused: a word of the same lemma with the same uses, or a deleted study's sample
    of the pair, has it already), numbered on from its split's last position; the id is the
    position, as for every round. As every importer: the words' splits locked first
    (``importers.positions_after``, in ``crowd_round_add``'s transaction), then the
    homonyms, setups and stories of all the words, each in one call (inserted in sorted
    order: ``get_or_create_many``), so two rounds at once take them in one order."""
    splits = {word.pk: _word_split(word) for word, _ in chosen}
    numbers = positions_after(split.pk for split in splits.values())  # first: the lock
    hid = homonym_ids(word.lemma for word, _ in chosen)  # its length: _checked_words
    ordered = {word.pk: _uses_of(word, pairs) for word, pairs in chosen}
    keys = {
        word.pk: [(hid[word.lemma], use_label(a), use_label(b)) for a, b in ordered[word.pk]]
        for word, _ in chosen
    }
    stories = stories_without_ending(k for word_keys in keys.values() for k in word_keys)
    samples, use_pairs = [], []
    for word, _ in chosen:
        split = splits[word.pk]
        for key, (a, b), n in zip(keys[word.pk], ordered[word.pk], numbers[split.pk]):
            sample = Sample(split=split, story=stories[key], dataset_id=str(n), position=n)
            samples.append(sample)
            use_pairs.append(UsePair(sample=sample, word=word, use1=a, use2=b, round=pair_round))
    Sample.objects.bulk_create(samples)  # their ids, for the use pairs
    UsePair.objects.bulk_create(use_pairs)
    return samples


@transaction.atomic
def crowd_round_add(*, crowd_study: CrowdStudy, criteria: Criteria | None = None) -> PairRound:
    """Sample the next round of every word of the study and add its pairs to the study (a
    new batch of slots once the study is open). Refused while the last round still has
    open slots (the next is sampled from its results; so a second click changes nothing)
    and when every word is connected enough."""
    crowd_study = CrowdStudy.objects.select_for_update().get(pk=crowd_study.pk)
    if crowd_study.study.status == Study.Status.CLOSED:
        raise CrowdError("The study is closed.")
    last = crowd_study.rounds.order_by("-number").first()
    if last is not None:
        still = open_slots(last)["open"]
        if still:
            raise CrowdError(
                f"Round {last.number} still has {still} judgment{'s' if still != 1 else ''} "
                "to make; the next round is sampled from its results."
            )
    number = last.number + 1 if last else 1
    pair_round = PairRound.objects.create(crowd_study=crowd_study, number=number)
    chosen = [
        (word, round_pairs(word, crowd_study, number, criteria))
        for word in crowd_study.words.order_by("name")
    ]
    samples = _samples(pair_round, chosen)
    if not samples:  # the round's row goes with the rollback
        raise CrowdError(
            "Every word is connected enough (each use in at least 2 judged pairs, every two "
            "clusters joined): no new round is needed."
        )
    study_services.study_samples_add(study=crowd_study.study, samples=samples)
    # a batch holds distinct pairs of this round's (the last round's are all taken)
    study_services.study_update(
        study=crowd_study.study,
        samples_per_participant=min(crowd_study.pairs_per_participant, len(samples)),
    )
    return pair_round
