"""RAW-C import (data/rawc/) and its leave-one-annotator-out agreement."""

from __future__ import annotations

import csv
import json
import statistics
from collections import defaultdict
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from scipy.stats import spearmanr

from annotations.metrics_relatedness import leave_one_annotator_out
from annotations.models import Rating, Sample, SentencePair, Split, TaskKind
from annotations.rawc import RawcFormatError, load_rawc, rawc_import, relatedness_agreement

RAWC = Path(__file__).resolve().parents[2] / "data" / "rawc"


@pytest.fixture(scope="module")
def rawc_data():
    return load_rawc(RAWC)


@pytest.fixture
def imported(db, rawc_data):
    rawc_import(data=rawc_data)
    return Split.objects.get(dataset__name="raw-c", name="all")


def test_the_import_gives_672_pairs_of_112_words_and_every_judgment(imported):
    samples = Sample.objects.filter(split=imported)
    assert samples.count() == 672
    assert samples.values("story__setup__homonym").distinct().count() == 112
    assert Rating.objects.filter(sample__split=imported, kind=TaskKind.RELATEDNESS).count() == 8624
    assert imported.dataset.task_kind == TaskKind.RELATEDNESS
    assert Rating.objects.filter(sample__split=imported).values("rater").distinct().count() == 77


def test_the_labels_are_kept(imported):
    pairs = SentencePair.objects.filter(sample__split=imported)
    assert pairs.filter(same_sense=True).count() == 224
    assert pairs.filter(ambiguity_type="Homonymy").count() == 228
    assert pairs.filter(dominance__isnull=False, same_sense=True).count() == 0
    assert pairs.filter(dominance__isnull=False).count() == 448
    act = pairs.get(sample__dataset_id="act:M1_a_M2_a")
    assert act.sample.story.setup.precontext == "It was a desperate act."
    assert act.sample.story.setup.sentence == "It was a magic act."
    assert act.distance_bert == pytest.approx(0.204110265)
    assert pairs.get(sample__dataset_id__startswith="bail:", version="M1_a_M2_a").target == "bailed"


def test_the_mean_of_the_imported_judgments_is_the_published_mean(imported):
    rows = list(csv.DictReader((RAWC / "raw-c.csv").open()))
    stats = {s.dataset_id: s.mean for s in Sample.objects.filter(split=imported).with_stats()}
    for row in rows[:50]:
        key = f"{row['word']}:{row['version']}"
        assert stats[key] == pytest.approx(float(row["mean_relatedness"]))


def test_a_second_import_changes_nothing(imported, rawc_data):
    report = rawc_import(data=rawc_data)
    assert (report.pairs_created, report.judgments_created) == (0, 0)
    assert Rating.objects.filter(sample__split=imported).count() == 8624


@pytest.mark.django_db
def test_a_file_with_more_pairs_adds_only_those_with_their_labels(rawc_data):
    from dataclasses import replace

    half = {p.key for p in rawc_data.pairs[::2]}
    first = replace(
        rawc_data,
        pairs=[p for p in rawc_data.pairs if p.key in half],
        judgments=[j for j in rawc_data.judgments if j.key in half],
    )
    assert rawc_import(data=first).pairs_created == 336
    kept = dict(Sample.objects.values_list("dataset_id", "pk"))
    report = rawc_import(data=rawc_data)
    assert (report.pairs_created, report.judgments_created) == (336, 8624 - len(first.judgments))
    samples = Sample.objects.filter(split__dataset__name="raw-c")
    assert {k: v for k, v in samples.values_list("dataset_id", "pk") if k in kept} == kept
    assert samples.count() == 672 and samples.values("story__setup").distinct().count() == 672
    labels = {p.sample.dataset_id: p for p in SentencePair.objects.select_related("sample")}
    for pair in rawc_data.pairs:
        label = labels[pair.key]
        assert (label.target, label.same_sense, label.distance_bert) == (
            pair.target, pair.same_sense, pair.distance_bert,
        )  # fmt: skip
        setup = label.sample.story.setup
        assert (setup.homonym.form, setup.precontext, setup.sentence) == (
            pair.word, pair.sentence1, pair.sentence2,
        )  # fmt: skip


def _independent_loao() -> list[float]:
    """Straight from the CSV: each subject against the others' mean of the same pairs."""
    scores = defaultdict(dict)
    for row in csv.DictReader((RAWC / "normed_critical.csv").open()):
        scores[(row["word"], row["version"])][row["subject"]] = int(row["relatedness"])
    per_subject = defaultdict(lambda: ([], []))
    for by_subject in scores.values():
        for subject, score in by_subject.items():
            others = [s for who, s in by_subject.items() if who != subject]
            if others:
                per_subject[subject][0].append(score)
                per_subject[subject][1].append(statistics.mean(others))
    return [spearmanr(a, b).statistic for a, b in per_subject.values()]


def test_the_agreement_matches_an_independent_computation_and_the_paper(imported):
    loao = relatedness_agreement(imported)
    expected = _independent_loao()
    assert loao.n_annotators == len(expected) == 77
    assert loao.mean == pytest.approx(statistics.mean(expected), abs=1e-9)
    assert loao.median == pytest.approx(statistics.median(expected), abs=1e-9)
    assert loao.mean == pytest.approx(0.79, abs=0.005)  # the paper's reported average


def test_the_agreement_leaves_out_an_annotator_with_constant_answers():
    judgments = [("a", i, i % 5) for i in range(5)] + [("b", i, i % 5) for i in range(5)]
    judgments += [("c", i, 2) for i in range(5)]
    loao = leave_one_annotator_out(judgments)
    assert set(loao.per_annotator) == {"a", "b"}


def test_the_command_imports_in_one_step_and_prints_the_counts(db):
    out = StringIO()
    call_command("import_rawc", str(RAWC), stdout=out)
    text = out.getvalue()
    assert "672 pairs, 112 words, 8624 judgments" in text
    assert "the paper reports 0.79" in text


def test_a_broken_file_imports_nothing(db, tmp_path):
    for name in ("raw-c.csv", "raw-c_with_dominance.csv"):
        (tmp_path / name).write_text((RAWC / name).read_text())
    lines = (RAWC / "normed_critical.csv").read_text().splitlines()
    lines[5] = lines[5].rsplit(",", 2)[0] + ",7," + lines[5].rsplit(",", 1)[1]
    (tmp_path / "normed_critical.csv").write_text("\n".join(lines))
    with pytest.raises(RawcFormatError, match="outside 0-4"):
        load_rawc(tmp_path)
    assert not Sample.objects.exists()


def test_the_ratings_export_names_the_task_kind(imported):
    from annotations.rating_exports import iter_ratings_jsonl, ratings_for_export

    lines = "".join(iter_ratings_jsonl(ratings_for_export()[:3])).splitlines()
    rows = [json.loads(line) for line in lines]
    assert {r["task_kind"] for r in rows} == {"relatedness"}
    assert all(0 <= r["score"] <= 4 for r in rows)


@pytest.mark.django_db
def test_a_file_with_more_judgments_of_stored_pairs_adds_every_one_of_them(rawc_data):
    from dataclasses import replace

    # every pair, but only the second half of each pair's judgments (file order)
    seen: dict[str, int] = defaultdict(int)
    late = []
    for j in rawc_data.judgments:
        seen[j.key] += 1
        late.append(seen[j.key] > 5)
    first = replace(rawc_data, judgments=[j for j, keep in zip(rawc_data.judgments, late) if keep])
    assert rawc_import(data=first).judgments_created == len(first.judgments)
    stored = set(Rating.objects.values_list("sample__dataset_id", "rater__pseudonym", "score"))
    report = rawc_import(data=rawc_data)
    assert (report.pairs_created, report.judgments_created) == (0, 8624 - len(first.judgments))
    ratings = Rating.objects.filter(sample__split__dataset__name="raw-c")
    assert ratings.count() == 8624
    every = set(ratings.values_list("sample__dataset_id", "rater__pseudonym", "score"))
    assert stored <= every  # the stored ones kept as they were
    assert {(j.key, j.subject, j.score) for j in rawc_data.judgments} == {
        (key, name.removeprefix("raw-c:"), score) for key, name, score in every
    }


@pytest.mark.django_db
def test_pairs_of_a_later_file_are_numbered_after_the_stored_ones(rawc_data):
    from dataclasses import replace

    def part(pairs):
        keys = {p.key for p in pairs}
        return replace(
            rawc_data, pairs=pairs, judgments=[j for j in rawc_data.judgments if j.key in keys]
        )

    rawc_import(data=part(rawc_data.pairs[:336]))
    stored = dict(Sample.objects.values_list("dataset_id", "position"))
    rawc_import(data=part(rawc_data.pairs[336:]))  # the rest, as a file of its own
    rows = Sample.objects.filter(split__dataset__name="raw-c").order_by("position", "id")
    positions = dict(rows.values_list("dataset_id", "position"))
    assert {k: positions[k] for k in stored} == stored
    assert len(set(positions.values())) == 672  # no two pairs share a position
    assert list(positions) == [p.key for p in rawc_data.pairs]  # the files' order
