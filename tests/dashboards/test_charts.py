"""Chart endpoints (``dashboards.charts``) that count within the scope's split."""

from __future__ import annotations

import pytest

from annotations.importers import ambistory_import, parse_ambistory
from annotations.models import Sample
from tests.factories import ambistory_sample, ambistory_setup

pytestmark = pytest.mark.django_db


def _setup_in_two_splits() -> int:
    """One setup whose open-ended samples are in dev (every rating 1) and whose ended ones
    are in train (every rating 5); returns the setup's id."""
    samples = {
        sid: ambistory_sample(
            sid,
            meaning=raw["judged_meaning"],
            example=raw["example_sentence"],
            sentence=raw["sentence"],
            ending=raw["ending"],
            choices=[1, 1, 1] if raw["ending"] == "" else [5, 5, 5],
        )
        for sid, raw in ambistory_setup(0).items()
    }
    for split, open_ended in (("dev", True), ("train", False)):
        chosen = {k: v for k, v in samples.items() if (v["ending"] == "") == open_ended}
        ambistory_import(samples=parse_ambistory(chosen), split=split)
    setups = set(Sample.objects.values_list("story__setup_id", flat=True))
    assert len(setups) == 1 and Sample.objects.count() == 6
    return setups.pop()


def test_the_setup_histograms_count_only_the_scopes_split(researcher_client):
    setup_id = _setup_in_two_splits()
    url = "/dashboards/charts/setup-histograms.json"
    dev = researcher_client.get(url, {"setup": setup_id, "split": "dev"}).json()
    assert len(dev["cells"]) == 6  # a cell for every sample of the grid
    assert [sum(c[i] for c in dev["cells"].values()) for i in range(5)] == [6, 0, 0, 0, 0]
    train_ids = Sample.objects.filter(split__name="train").values_list("id", flat=True)
    assert all(dev["cells"][str(i)] == [0] * 5 for i in train_ids)
    train = researcher_client.get(url, {"setup": setup_id, "split": "train"}).json()
    assert [sum(c[i] for c in train["cells"].values()) for i in range(5)] == [0, 0, 0, 0, 12]
    every = researcher_client.get(url, {"setup": setup_id}).json()
    assert [sum(c[i] for c in every["cells"].values()) for i in range(5)] == [6, 0, 0, 0, 12]


def test_the_setup_histograms_agree_with_the_grids_counts(researcher_client):
    setup_id = _setup_in_two_splits()
    page = researcher_client.get(f"/dashboards/setups/{setup_id}/", {"split": "dev"})
    grid_counts = {
        str(row.sample.id): row.sample.n_ratings
        for _, cells in page.context["grid"].grid()
        for row in cells
        if row is not None
    }
    url = "/dashboards/charts/setup-histograms.json"
    chart = researcher_client.get(url, {"setup": setup_id, "split": "dev"}).json()
    assert {k: sum(v) for k, v in chart["cells"].items()} == grid_counts


def _refuse(name: str):
    raise ValueError(f"not JSON: {name}")  # what a browser's JSON.parse does with it


def test_an_infinite_figure_is_null_in_the_charts_json(researcher_client, monkeypatch):
    """An infinite score reached the scatter's JSON as ``Infinity``, which JSON.parse
    refuses. The database refuses a non-finite prediction now (``prediction_score_finite``,
    tests/predictions/test_models.py), so the infinity comes from the chart's reading of the
    predictions here: the guard (``ambisite.finite.json_safe``) is for every figure a chart
    computes, not only stored ones."""
    import json

    from dashboards import charts
    from tests.dashboards.helpers import import_run, import_setups

    split = import_setups(1, split="inf")
    run = import_run(split, "infinite")
    read = charts.predictions_by_run

    def one_infinite(runs, samples):
        found = read(runs, samples)
        first = min(found[run.pk])
        found[run.pk][first] = float("inf")
        return found

    monkeypatch.setattr(charts, "predictions_by_run", one_infinite)
    response = researcher_client.get("/dashboards/charts/model-vs-human.json", {"run": run.pk})
    assert response.status_code == 200
    found = json.loads(response.content, parse_constant=_refuse)
    (point,) = [p for p in found["points"] if p["y"] is None]
    assert point["inside"] is False and len(found["points"]) == 6
