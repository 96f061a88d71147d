"""The agreement page: alpha, mean SD, the human upper bound and friends."""

from __future__ import annotations

import statistics

import krippendorff
import numpy as np
import pytest

from annotations.services import rater_exclude
from tests.dashboards.helpers import import_setups, study_ratings

pytestmark = pytest.mark.django_db


def figures(response) -> dict:
    return {m["key"]: m for m in response.json()["metrics"]}


def test_on_dev_it_shows_alpha_mean_sd_and_the_human_upper_bound(
    researcher_client, dev_split, dev_json
):
    page = researcher_client.get("/dashboards/", {"split": dev_split.id})
    html = page.content.decode()
    for title in ("Krippendorff", "Mean SD per sample", "Average annotator: accuracy against"):
        assert title in html
    assert "Human upper bound: accuracy (average" not in html  # it is no upper bound
    assert "Best-per-group upper bound not shown" in html  # imported: groups unknown
    data = researcher_client.get("/dashboards/agreement.json", {"split": dev_split.id, "boot": 50})
    got = figures(data)
    # independent computations straight from the file
    width = max(len(v["choices"]) for v in dev_json.values())
    reliability = np.full((width, len(dev_json)), np.nan)
    for j, sample in enumerate(dev_json.values()):
        reliability[: len(sample["choices"]), j] = sample["choices"]
    alpha = krippendorff.alpha(reliability_data=reliability, level_of_measurement="interval")
    assert got["alpha"]["value"] == pytest.approx(alpha, abs=1e-9)
    mean_sd = statistics.fmean(v["stdev"] for v in dev_json.values())
    assert got["mean_sd"]["value"] == pytest.approx(mean_sd, abs=1e-9)
    assert f"{mean_sd:.3f}" in html and f"{alpha:.3f}" in html
    low, high = got["alpha"]["interval"]
    assert low < alpha < high
    assert data.json()["n_setups"] == 98 and data.json()["n_boot"] == 50
    assert "best_accuracy" not in got and 0.5 < got["average_accuracy"]["value"] < 1


def test_it_scores_a_dissenting_participant_against_the_others(researcher_client):
    split = import_setups(1, split="hand")  # 6 samples with imported ratings
    agree, dissent = [1, 1, 5, 5, 3, 2], [5, 5, 1, 1, 3, 4]
    study_ratings(split, {"A": agree, "B": agree, "C": agree, "D": dissent})
    from annotations.models import Rater

    for rater in Rater.objects.filter(kind=Rater.Kind.IMPORTED):  # keep the participants only
        rater_exclude(rater=rater, source="manual", reason="not part of this case")
    got = figures(researcher_client.get("/dashboards/agreement.json", {"boot": 20}))
    # by hand: A, B, C always inside the others' band; D inside only where all agree (1/6)
    assert got["average_accuracy"]["value"] == pytest.approx((3 + 1 / 6) / 4)
    assert got["best_accuracy"]["value"] == pytest.approx(1.0)
    assert got["best_spearman"]["value"] == pytest.approx(1.0)
    assert got["loo_spearman"]["value"] == pytest.approx((3 * 1 + -1) / 4)
    html = researcher_client.get("/dashboards/").content.decode()
    assert "best annotator per group" in html and "Groups: 1 sets" in html
    assert 'id="group-figures"' in html  # the group's own row: best 1.000, average below
    with_all = figures(
        researcher_client.get("/dashboards/agreement.json", {"include_excluded": "on", "boot": 20})
    )
    assert with_all["alpha"]["value"] != got["alpha"]["value"]  # the toggle brings them back


def test_a_study_filter_uses_only_that_studys_participants(researcher_client):
    from annotations.models import Rater
    from studies.models import Participant, Study, StudySample

    split = import_setups(1, split="studied")  # imported ratings on the same samples
    raters = study_ratings(split, {"S1": [1, 1, 5, 5, 3, 2], "S2": [1, 2, 5, 4, 3, 2]})
    study = Study.objects.create(slug="s", title="S", completion_code="c", screenout_code="x")
    for k, rater in enumerate(raters):
        Participant.objects.create(study=study, rater=rater, prolific_pid=f"P{k}")
    for sample in split.samples.all():
        StudySample.objects.create(study=study, sample=sample)
    data = researcher_client.get("/dashboards/agreement.json", {"study": study.id, "boot": 10})
    assert data.json()["n_ratings"] == 12  # not the 30 imported ratings
    assert data.json()["groups_known"] is True
    assert Rater.objects.filter(kind=Rater.Kind.IMPORTED).exists()


def test_on_dev_annotator_figures_weight_positions_by_coverage_and_say_so(
    researcher_client, dev_split, dev_json
):
    from predictions.evaluation import is_within_sd

    data = researcher_client.get("/dashboards/agreement.json", {"split": dev_split.id, "boot": 40})
    got, payload = figures(data), data.json()
    # coverage-weighted accuracy = the share of all ratings inside the others' band
    verdicts = [
        is_within_sd(v, sample["choices"][:k] + sample["choices"][k + 1 :])
        for sample in dev_json.values()
        for k, v in enumerate(sample["choices"])
    ]
    pooled = sum(verdicts) / len(verdicts)
    assert got["average_accuracy"]["value"] == pytest.approx(pooled, abs=1e-12)
    loo = payload["loo"]
    assert (loo["n"], loo["items_min"], loo["items_max"]) == (6, 12, 588)  # the 6th position
    assert loo["mean"] < loo["unweighted_mean"]
    assert payload["split_half"]["splits"] == 200 == payload["split_half"]["defined"]
    for metric in payload["metrics"]:
        drawn = 40 if metric["key"] in ("alpha", "mean_sd", "split_half") else None
        assert metric["replicates"]["defined"] <= metric["replicates"]["drawn"]
        assert drawn is None or metric["replicates"]["drawn"] == drawn
    html = researcher_client.get("/dashboards/", {"split": dev_split.id}).content.decode()
    assert "weight each annotator by the number of samples it rated" in html
    assert "(here 12 to 588;" in html and "mean over 200 random splits" in html
