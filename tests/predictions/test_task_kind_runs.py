"""Relatedness and sense-choice model runs on the real offline MiniLM: the RAW-C distance
backend (Spearman against mean relatedness), the FOOL kNN probe (accuracy and macro-F1
per set) and their scores."""

from __future__ import annotations

import json

import pytest

from annotations.models import Split
from annotations.rawc import load_rawc, rawc_import
from predictions.models import ModelRun
from predictions.runs.scoring import run_score
from predictions.runs.services import run_create
from predictions.runs.worker import run_execute
from tests.studies.kinds_helpers import DATA, fool_samples

pytestmark = [pytest.mark.ml, pytest.mark.django_db]


@pytest.fixture(scope="module")
def rawc_data():
    return load_rawc(DATA / "rawc")


def test_the_minilm_relatedness_run_correlates_with_mean_relatedness(rawc_data):
    rawc_import(data=rawc_data)
    split = Split.objects.get(dataset__name="raw-c", name="all")
    run = run_create(name="minilm", backend="minilm_relatedness", params={}, split=split,
                     enqueue=False)  # fmt: skip
    run = run_execute(run.pk)
    assert run.status == ModelRun.Status.SUCCEEDED, run.error
    assert run.predictions.count() == 672
    scores = run_score(run=run)
    assert scores["total"] == 672
    # distances: a model that tracks relatedness correlates negatively (paper: BERT -0.58)
    assert scores["spearman"] < -0.3
    assert run.model_version.startswith("all-MiniLM-L6-v2")


def test_the_knn_probe_fits_on_the_train_set_and_reports_each_set():
    fool_samples()
    test = Split.objects.get(dataset__name="fool-sample", name="test")
    run = run_create(name="knn", backend="knn_probe", params={}, fit_split="train",
                     split=test, enqueue=False)  # fmt: skip
    run = run_execute(run.pk)
    assert run.status == ModelRun.Status.SUCCEEDED, run.error
    scores = run_score(run=run)
    assert set(scores["per_set"]) == {"1", "2", "3", "4"}
    assert scores["total"] == 40 and scores["per_set"]["1"]["total"] == 10
    assert 0 <= scores["macro_f1"] <= 1 and scores["per_set"]["1"]["accuracy"] >= 0.5
    raw = json.loads(run.predictions.first().raw_output)
    assert len(raw["neighbours"]) == 3 and len(raw["xy"]) == 2
    # the default is FOOL's recipe (mean of the last four layers); the last layer alone is
    # the option, and on this sample it does no better
    assert "mean of layers 3-6" in run.model_version
    last = run_create(name="knn-last", backend="knn_probe", params={"layers": "last"},
                      fit_split="train", split=test, enqueue=False)  # fmt: skip
    last = run_execute(last.pk)
    assert "last layer" in last.model_version
    assert scores["accuracy"] >= run_score(run=last)["accuracy"]


def test_the_knn_probe_refuses_an_unknown_layer_recipe_by_name():
    from predictions.backends.kinds import KnnProbeBackend
    from predictions.errors import ParamError

    with pytest.raises(ParamError, match=r"params\.layers: .*last4, last"):
        KnnProbeBackend(layers="first")


def test_the_prompt_page_shows_the_exact_prompt_for_a_real_sense_choice_item(researcher_client):
    from django.urls import reverse

    from predictions.prompts import get_prompt
    from predictions.prompts.sense_choice import render_sense_choice
    from predictions.runs.rows import split_rows

    fool_samples()
    test = Split.objects.get(dataset__name="fool-sample", name="test")
    url = reverse("prompts:detail", args=["sense-choice-v1"])
    page = researcher_client.get(url, {"split": test.pk, "sample": "bank_river-4-1"})
    assert page.status_code == 200
    row = next(r for r in split_rows(test) if r.sample["id"] == "bank_river-4-1")
    messages, _ = render_sense_choice(get_prompt("sense-choice-v1"), row.sample)
    html = page.content.decode()
    assert "&lt;t&gt;bank&lt;/t&gt; of the stream" in html
    assert "Candidate senses:" in html and "candidate-order" in html
    assert len(messages) == 2


def test_the_run_page_shows_the_scores_of_its_kind(researcher_client):
    from django.urls import reverse

    fool_samples()
    test = Split.objects.get(dataset__name="fool-sample", name="test")
    run = ModelRun.objects.create(name="k", backend="knn_probe", split=test, status="succeeded")
    run.predictions.create(sample=test.samples.get(dataset_id="bank_river-4-1"), score=1.0)
    run_score(run=run)
    html = researcher_client.get(reverse("runs:detail", args=[run.pk])).content.decode()
    assert "macro-F1" in html and "set 4: 1.00 / 1.00" in html
