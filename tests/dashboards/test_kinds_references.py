"""The relatedness page's recomputed reference Spearman: pairs without a distance left out."""

from __future__ import annotations

import pytest
from scipy.stats import spearmanr

from annotations.models import Rating, SentencePair, Split
from annotations.rawc import RawcData, load_rawc, rawc_import
from annotations.scope import RatingScope
from dashboards import kinds
from tests.studies.kinds_helpers import DATA

pytestmark = pytest.mark.django_db


def test_a_pair_without_a_distance_is_left_out_of_the_recomputed_spearman():
    """60 pairs, 20 of them without an ELMo distance: the recomputed ELMo rho counted those
    20 as distance 0.0; it is the rho over the 40 pairs that have one."""
    data = load_rawc(DATA / "rawc")
    keep = {p.key for p in data.pairs[:60]}
    rawc_import(data=RawcData(data.pairs[:60], [j for j in data.judgments if j.key in keep]))
    split = Split.objects.get(dataset__name="raw-c")
    missing = list(SentencePair.objects.filter(sample__split=split).order_by("pk")[:20])
    SentencePair.objects.filter(pk__in=[p.pk for p in missing]).update(distance_elmo=None)
    scope = RatingScope(kind="relatedness", splits=(split,))
    view = kinds.relatedness_view(split, scope.ratings())
    scores: dict[int, list[int]] = {}
    for sample_id, score in Rating.objects.valid().values_list("sample_id", "score"):
        scores.setdefault(sample_id, []).append(score)
    known = [
        (p.distance_elmo, sum(scores[p.sample_id]) / len(scores[p.sample_id]))
        for p in SentencePair.objects.filter(sample__split=split, distance_elmo__isnull=False)
    ]
    assert len(known) == 40
    expected = spearmanr([d for d, _ in known], [m for _, m in known]).statistic
    elmo = next(r for r in view.references if r.name == "ELMo")
    assert elmo.recomputed == pytest.approx(expected)
