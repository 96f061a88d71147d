"""The relatedness and sense-choice page: RAW-C's agreement next to the paper's, the runs'
Spearman next to BERT and ELMo, Figure 4's residual view; sense-choice runs per set and
the sense map."""

from __future__ import annotations

import json

import pytest
from django.db.models import Count
from django.urls import reverse

from annotations.models import Split
from annotations.rawc import RawcData, load_rawc, rawc_import
from predictions.models import ModelRun, Prediction
from predictions.runs.scoring import run_score
from tests.studies.kinds_helpers import DATA, fool_samples

pytestmark = pytest.mark.django_db


def _finished(split: Split, backend: str, scores: dict) -> ModelRun:
    run = ModelRun.objects.create(name=backend, backend=backend, split=split, status="succeeded")
    for sample_id, (score, raw) in scores.items():
        Prediction.objects.create(run=run, sample_id=sample_id, score=score, raw_output=raw)
    run_score(run=run)
    return run


def test_the_page_shows_relatedness_agreement_spearman_and_residuals(researcher_client):
    data = load_rawc(DATA / "rawc")
    keep = {p.key for p in data.pairs[:60]}
    rawc_import(data=RawcData(data.pairs[:60], [j for j in data.judgments if j.key in keep]))
    split = Split.objects.get(dataset__name="raw-c")
    pairs = split.samples.select_related("pair")
    _finished(split, "minilm_relatedness", {s.pk: (s.pair.distance_bert, "") for s in pairs})
    page = researcher_client.get(reverse("dashboards:kinds"))
    html = page.content.decode()
    assert page.status_code == 200
    assert "Leave-one-annotator-out" in html and "0.79" in html
    assert "-0.58 reported" in html and "-0.53 reported" in html
    assert 'id="relatedness-residuals"' in html and "different sense, Homonymy" in html
    assert 'class="num spearman"' in html


def test_the_page_shows_sense_choice_runs_per_set_and_the_sense_map(researcher_client):
    samples = fool_samples("1") + fool_samples("3")
    split = samples[0].split
    run = _finished(
        split,
        "knn_probe",
        {s.pk: (0.0, json.dumps({"neighbours": [], "xy": [s.pk % 7, s.pk % 3]})) for s in samples},
    )
    assert set(run.scores["per_set"]) == {"1", "3"}
    html = researcher_client.get(reverse("dashboards:kinds")).content.decode()
    assert "set 1" in html and "set 3" in html
    assert html.count('<figure class="sense-panel">') == 10  # 5 words x 2 sets
    assert 'class="sense-0"' in html and 'class="sense-1"' in html


def test_the_plausibility_dashboards_leave_other_kinds_out_unless_their_split_is_chosen():
    from dashboards.forms import sample_filter

    data = load_rawc(DATA / "rawc")
    keep = {p.key for p in data.pairs[:12]}
    rawc_import(data=RawcData(data.pairs[:12], [j for j in data.judgments if j.key in keep]))
    split = Split.objects.get(dataset__name="raw-c")
    everything = sample_filter({})
    assert not everything.samples().exists() and not everything.ratings().exists()
    chosen = sample_filter({"split": split.pk})
    assert chosen.samples().count() == 12
    assert chosen.ratings().count() == split.samples.aggregate(n=Count("ratings"))["n"]


def test_the_agreement_page_works_on_a_relatedness_split(researcher_client):
    data = load_rawc(DATA / "rawc")
    keep = {p.key for p in data.pairs[:30]}
    rawc_import(data=RawcData(data.pairs[:30], [j for j in data.judgments if j.key in keep]))
    split = Split.objects.get(dataset__name="raw-c")
    for name in ("dashboards:agreement", "dashboards:annotators", "dashboards:items"):
        assert researcher_client.get(reverse(name), {"split": split.pk}).status_code == 200
