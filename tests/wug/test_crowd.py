"""Use-pair crowd studies (``wug.crowd``): rounds as batches of slots, no pair twice, gold
pairs as attention checks, and the crowd's judgments in the word's graph and export."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from annotations.models import Homonym, Rater, Rating, Sample, TaskKind
from studies import services
from studies.models import Slot, StudySample
from tests.studies.helpers import rate_all
from wug.analysis import graph_payload, word_judgments, word_summary
from wug.crowd import CrowdError, crowd_round_add, crowd_study_create, round_pairs
from wug.crowd_reads import round_progress
from wug.exporters import word_files
from wug.graph import pair_key
from wug.models import GoldPair, UsePair, Word
from wug.sampling import Criteria, first_round

from .crowd_helpers import arrive, small_word

pytestmark = pytest.mark.django_db


def _study(word, **fields):
    defaults = dict(
        words=[word],
        title="Planes",
        slug="planes",
        pairs_per_round=6,
        judgments_per_pair=2,
        pairs_per_participant=3,
        gold_pairs_total=2,
        gold_per_participant=1,
    )
    return crowd_study_create(**{**defaults, **fields})


def _pairs(crowd, number=None):
    rows = UsePair.objects.filter(round__crowd_study=crowd)
    if number is not None:
        rows = rows.filter(round__number=number)
    return {pair_key(a, b) for a, b in rows.values_list("use1__identifier", "use2__identifier")}


def _finish_round(study, first_pid: int) -> int:
    """Participants arrive and rate until no slot is free; returns the next free pid."""
    n = first_pid
    while Slot.objects.filter(study=study, status="free").exists():
        rate_all(arrive(study, n))
        n += 1
    return n


def test_round_one_is_random_pairs_of_the_use_pair_kind_as_samples_of_the_study():
    word = small_word()
    crowd = _study(word)
    uses = [f"u{i}" for i in range(8)]
    assert _pairs(crowd, 1) == set(first_round(uses, 6, seed=1))
    study = crowd.study
    assert study.task_kind == TaskKind.USE_PAIR and study.status == "draft"
    assert StudySample.objects.filter(study=study).count() == 6
    assert {s.sample.task_kind for s in StudySample.objects.filter(study=study)} == {"use_pair"}
    services.study_open(study=study)
    assert Slot.objects.filter(study=study).count() == 6 * 2


def test_the_next_round_waits_for_the_last_and_becomes_new_slots_of_the_open_study():
    word = small_word()
    crowd = _study(word)
    study = services.study_open(study=crowd.study)
    with pytest.raises(CrowdError, match="Round 1 still has 12 judgments"):
        crowd_round_add(crowd_study=crowd)
    _finish_round(study, 1)
    assert len(word_judgments(word)) == 12
    second = crowd_round_add(crowd_study=crowd)
    assert second.number == 2
    new = _pairs(crowd, 2)
    assert new and not new & _pairs(crowd, 1)  # never a pair asked before
    assert Slot.objects.filter(study=study, status="free").count() == 2 * len(new)
    progress = round_progress(crowd)
    assert [(p.number, p.done, p.open) for p in progress] == [(1, 12, 0), (2, 0, 2 * len(new))]


def test_rounds_stop_once_the_graph_is_connected_enough():
    word = small_word(4)
    crowd = _study(word, pairs_per_round=6, slug="four")  # all 6 pairs of 4 uses
    study = services.study_open(study=crowd.study)
    _finish_round(study, 1)
    assert round_pairs(word, crowd, 2, Criteria()) == []
    with pytest.raises(CrowdError, match="connected enough"):
        crowd_round_add(crowd_study=crowd)
    assert crowd.rounds.count() == 1  # the refused round left nothing


def test_no_participant_judges_a_pair_twice():
    word = small_word()
    crowd = _study(word)
    study = services.study_open(study=crowd.study)
    participant = arrive(study, 1)
    held = Slot.objects.filter(participant=participant).first()
    assert held is not None
    other = Slot.objects.filter(study=study, sample=held.sample, status="free").first()
    with pytest.raises(IntegrityError), transaction.atomic():  # the same pair's setup again
        Slot.objects.filter(pk=other.pk).update(
            participant=participant, status="reserved", position=99
        )
    use1, use2 = UsePair.objects.values_list("use1", "use2").first()
    with pytest.raises(IntegrityError), transaction.atomic():  # (b, a) is the same pair
        UsePair.objects.create(
            sample=held.sample, word=word, use1_id=use2, use2_id=use1, round=crowd.rounds.get()
        )
    seen = [
        pair_key(*p)
        for p in UsePair.objects.filter(
            sample__in=Slot.objects.filter(participant=participant).values("sample")
        ).values_list("use1__identifier", "use2__identifier")
    ]
    assert len(seen) == len(set(seen)) == 3


def test_gold_pairs_are_attention_checks_and_a_failed_one_takes_the_judgments_out_of_the_graph():
    word = small_word()
    crowd = _study(word)
    golds = list(GoldPair.objects.filter(question__study=crowd.study).select_related("question"))
    assert len(golds) == 2 and all(g.use1 == g.use2 for g in golds)  # identity: 4
    assert {g.question.expected for g in golds} == {4}
    study = services.study_open(study=crowd.study)
    careless = arrive(study, 1)
    rate_all(careless, check_score=0)  # "cannot decide" on an identical pair fails
    assert careless.attention_answers.get().passed is False
    assert Rater.objects.excluded().filter(pk=careless.rater_id).exists()
    assert word_judgments(word) == []
    careful = arrive(study, 2)
    rate_all(careful)
    assert careful.attention_answers.get().passed is True
    assert {j.annotator for j in word_judgments(word)} == {careful.rater.pseudonym}


def test_gold_pairs_prefer_unanimous_extremes_of_the_graph():
    from wug.graph import Judgment
    from wug.sampling import gold_pairs

    judged = [
        Judgment("a", "b", "x", 4),
        Judgment("a", "b", "y", 4),
        Judgment("c", "d", "x", 1),
        Judgment("c", "d", "y", 1),
        Judgment("a", "c", "x", 1),
        Judgment("a", "c", "y", 2),  # not unanimous
        Judgment("b", "d", "x", 4),  # one annotator only
    ]
    golds = gold_pairs(["a", "b", "c", "d"], judged, 3)
    assert [(g.use1, g.use2, g.expected) for g in golds[:2]] == [("c", "d", 1), ("a", "b", 4)]
    assert golds[2].use1 == golds[2].use2 and golds[2].expected == 4


def test_the_crowds_judgments_feed_the_graph_the_statistics_and_the_export():
    word = small_word()
    crowd = _study(word)
    study = services.study_open(study=crowd.study)
    _finish_round(study, 1)
    ratings = Rating.objects.filter(sample__use_pair__word=word)
    assert ratings.count() == 12
    names = set(ratings.values_list("rater__pseudonym", flat=True))
    summary = word_summary(word)
    assert summary.judgments == 12 and summary.annotators == len(names)
    payload = graph_payload(word)
    assert {(e["source"], e["target"]) for e in payload["edges"]} == _pairs(crowd)
    assert all(e["weight"] == 3 for e in payload["edges"])  # rate_all gives 3
    lines = word_files(word)["judgments.csv"].splitlines()
    assert lines[0].split("\t") == [
        "identifier1",
        "identifier2",
        "annotator",
        "judgment",
        "comment",
        "lemma",
        "round",
    ]
    rows = [line.split("\t") for line in lines[1:]]
    assert len(rows) == 12 and {r[2] for r in rows} == names
    assert {(r[3], r[5], r[6]) for r in rows} == {("3.0", "plane", "1")}


def test_a_cannot_decide_judgment_is_kept_but_left_out_of_the_edge():
    word = small_word()
    crowd = _study(word)
    study = services.study_open(study=crowd.study)
    participant = arrive(study, 1)
    from studies.selectors import batch_items

    for item in batch_items(participant):
        score = 4 if item.sample_id is None else 0
        services.item_save(
            participant=participant, position=item.position, answer=services.Answer(score=score)
        )
    assert {j.score for j in word_judgments(word)} == {0}
    assert graph_payload(word)["edges"] == []
    from annotations.models import Sample
    from studies.researcher_reads import study_samples_with_stats

    judged = [s for s in study_samples_with_stats(study) if s.n_ratings]
    assert len(judged) == 3 and all(s.mean is None and s.sd is None for s in judged)
    assert all(
        s.mean is None for s in Sample.objects.filter(pk__in=[s.pk for s in judged]).with_stats()
    )


def test_a_study_needs_usage_usage_words():
    with pytest.raises(CrowdError, match="at least one word"):
        crowd_study_create(words=[], title="x", slug="x")


def test_an_export_with_the_crowds_judgments_reimports_to_the_same_graph(tmp_path):
    from wug.exporters import export_words
    from wug.formats import read_word
    from wug.services import wug_import

    word = small_word()
    study = services.study_open(study=_study(word).study)
    _finish_round(study, 1)
    participant = Rater.objects.filter(ratings__sample__use_pair__word=word).first()
    Rating.objects.filter(rater=participant).update(comment="two\tlines\nhere")
    before = sorted((j.use1, j.use2, j.annotator, j.score) for j in word_judgments(word))
    (folder,) = export_words([word], tmp_path)
    files = read_word(folder)
    assert len(files.judgments.rows) == 12
    assert {r["comment"] for r in files.judgments.rows} >= {"two lines here"}
    wug_import(words=[files], replace=True)  # the study keeps its pairs (test_crowd_replace)
    word = type(word).objects.get(name=word.name)
    assert UsePair.objects.filter(word=word).count() == 6
    again = sorted((j.use1, j.use2, j.annotator, j.score) for j in word_judgments(word))
    assert again == before


def test_a_round_after_a_gap_in_the_splits_positions_numbers_on_from_the_last_one():
    word = small_word()
    crowd = _study(word)
    samples = Sample.objects.filter(use_pair__word=word).order_by("position")
    assert list(samples.values_list("position", flat=True)) == [0, 1, 2, 3, 4, 5]
    gone = samples.get(position=2)  # e.g. by an admin, out of its study first: a gap
    StudySample.objects.filter(sample=gone).delete()
    gone.delete()  # 5 samples, the last at 5
    second = crowd_round_add(crowd_study=crowd)
    added = Sample.objects.filter(use_pair__round=second)
    assert added.exists()
    rows = list(samples.values_list("position", "dataset_id"))
    assert len({p for p, _ in rows}) == len(rows)  # no two samples share a position
    assert min(p for p, _ in added.values_list("position", "dataset_id")) == 6
    assert all(dataset_id == str(p) for p, dataset_id in rows)


def test_a_lemma_over_the_homonyms_column_is_refused_not_cut():
    word = small_word()
    Word.objects.filter(pk=word.pk).update(lemma="p" * 101)  # a WUG lemma may have 200
    word.refresh_from_db()
    with pytest.raises(CrowdError, match="plane_test: lemma is 101 characters long"):
        _study(word)
    assert not Sample.objects.exists() and not Homonym.objects.exists()


def test_a_long_word_name_gives_a_shortened_dataset_title():
    word = small_word(name="w" * 200)  # the title is made here: cut to its column
    _study(word)
    assert Sample.objects.first().split.dataset.title == ("Use pairs of " + "w" * 200)[:200]
