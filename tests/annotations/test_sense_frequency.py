"""annotations.sense_frequency: senses found by gloss in a miniature WordNet
(tests/vectors/wordnet/) with their SemCor counts, Spearman's rho against hand-computed
ranks, and the shipped table reproducing the AmbiStory paper's section 4.2 on train+dev."""

from __future__ import annotations

import json
import math
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from annotations.sense_frequency import (
    frequency_correlation,
    match_sense,
    read_table,
    read_wordnet,
)

ROOT = Path(__file__).resolve().parents[2]
MINI = ROOT / "tests" / "vectors" / "wordnet"


@pytest.fixture(scope="module")
def wordnet():
    return read_wordnet(MINI)


@pytest.mark.parametrize(
    ("form", "gloss", "expected"),
    [
        ("bank", "a financial institution", ("bank", "n", 1, 20)),
        ("banks", "Sloping land beside a body of water.", ("bank", "n", 2, 0)),
        ("Drawing", "make a mark or lines on a surface;", ("draw", "v", 1, 5)),
        ("drew", "take liquid out of a container or well", ("draw", "v", 2, 0)),
    ],
)
def test_a_sense_is_found_by_its_gloss_among_the_base_forms_senses(wordnet, form, gloss, expected):
    found = match_sense(form, gloss, wordnet)
    assert (found.lemma, found.pos, found.sense_number, found.semcor_count) == expected


def test_a_gloss_wordnet_does_not_have_finds_nothing(wordnet):
    assert match_sense("bank", "a long ridge", wordnet) is None
    assert match_sense("river", "a financial institution", wordnet) is None


def test_spearman_on_hand_ranked_frequencies():
    counts = {("bank", "a financial institution"): 20, ("bank", "sloping land"): 0,
              ("draw", "make a mark"): 5, ("draw", "take liquid"): 0}  # fmt: skip
    samples = [("bank", "A financial institution.", 4.0), ("bank", "sloping land", 2.0),
               ("draw", "make a mark", 3.0), ("draw", "take liquid", 1.0),
               ("seal", "an animal", 5.0)]  # fmt: skip
    found = frequency_correlation(samples, counts)
    # ranks of the counts 4, 1.5, 3, 1.5 against 4, 2, 3, 1: 4.5 / sqrt(4.5 * 5)
    assert found.rho == pytest.approx(4.5 / math.sqrt(4.5 * 5))
    assert (found.n, found.unmatched, found.zero_counts) == (4, 1, 2)
    with pytest.raises(ValueError, match="too few"):
        frequency_correlation(samples[:2], counts)


def test_the_shipped_table_gives_the_papers_small_but_significant_correlation():
    counts = read_table(ROOT / "data" / "wordnet" / "ambistory-sense-frequencies.tsv")
    samples = []
    for name in ("train", "dev"):
        records = json.loads((ROOT / "data" / "ambistory" / f"{name}.json").read_text())
        samples += [(r["homonym"], r["judged_meaning"], r["average"]) for r in records.values()]
    found = frequency_correlation(samples, counts)
    assert (found.n, found.unmatched) == (2787, 81)
    # the paper: "a small but highly significant (p < 0.01) correlation"
    assert 0 < found.rho < 0.2 and found.p < 0.01


def test_the_command_writes_a_table_that_reads_back(tmp_path):
    ambistory = tmp_path / "a.json"
    ambistory.write_text(json.dumps({
        "1": {"homonym": "bank", "judged_meaning": "a financial institution"},
        "2": {"homonym": "drew", "judged_meaning": "take liquid out of a container or well"},
        "3": {"homonym": "bank", "judged_meaning": "a long ridge"},
    }))  # fmt: skip
    out, table = StringIO(), tmp_path / "t.tsv"
    call_command("build_sense_frequencies", str(ambistory), "--wordnet", str(MINI),
                 "--out", str(table), stdout=out)  # fmt: skip
    assert "2 senses written" in out.getvalue() and "bank: a long ridge" in out.getvalue()
    assert read_table(table) == {("bank", "a financial institution"): 20,
                                 ("drew", "take liquid out of a container or well"): 0}  # fmt: skip
