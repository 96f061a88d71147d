"""The leaderboard reproduces the official scorer and the paper's tables live."""

from __future__ import annotations

import json
import re

import pytest

from predictions.io.importers import predictions_import
from predictions.models import ModelRun
from tests.conftest import CONFORMANCE
from tests.dashboards.helpers import import_run, import_setups

pytestmark = pytest.mark.django_db
EXPECTED = json.loads((CONFORMANCE / "expected.json").read_text())


def import_file(split, name):
    with open(CONFORMANCE / name, encoding="utf-8") as handle:
        return predictions_import(split=split, name=name, lines=handle)


def test_it_shows_the_official_figures_of_an_imported_dev_run(researcher_client, dev_split):
    run = import_file(dev_split, "pred_random.jsonl")
    expected = EXPECTED["pred_random.jsonl"]
    response = researcher_client.get("/dashboards/leaderboard/")
    html = response.content.decode()
    assert "0.44727891156462585" in html and "263/588" in html
    assert "-0.08018581545573154" in html
    row = response.context["rows"][0]
    assert row.run == run
    assert row.parts["all"].accuracy == expected["accuracy"] == run.scores["accuracy"]
    assert row.parts["all"].spearman == pytest.approx(expected["spearman"], abs=1e-12)
    open_, ended = row.parts["open"], row.parts["ended"]
    assert open_.correct + ended.correct == 263 and open_.total + ended.total == 588
    assert open_.total == 196  # one open-ended story of three per setup
    assert f"{open_.correct}/{open_.total}" in html and f"{ended.correct}/{ended.total}" in html
    assert sum(row.distribution["model_all"]) == pytest.approx(1.0)
    assert sum(row.distribution["human_all"]) == pytest.approx(1.0)


def test_it_lists_only_finished_runs_and_gives_intervals_by_setup(researcher_client):
    split = import_setups(4)
    good = import_run(split, "good", value=lambda i: 4)
    ModelRun.objects.filter(pk=import_run(split, "failed").pk).update(status="failed")
    html = researcher_client.get("/dashboards/leaderboard/").content.decode()
    assert "good" in html and "failed" not in html
    data = researcher_client.get("/dashboards/leaderboard/intervals.json", {"boot": 100}).json()
    low, high = data["runs"][str(good.id)]["accuracy"]
    assert low <= good.scores["accuracy"] <= high
    assert data["runs"][str(good.id)]["replicates"] == 100  # all of them: a small run


def test_it_compares_two_runs_with_a_paired_bootstrap_and_wilcoxon(researcher_client):
    split = import_setups(4)
    a = import_run(split, "run-a", value=lambda i: 4)
    b = import_run(split, "run-b", value=lambda i: 1)
    response = researcher_client.get("/dashboards/leaderboard/", {"a": a.id, "b": b.id})
    paired = response.context["paired"]
    assert paired.n_items == 24
    assert paired.accuracy_diff == pytest.approx(a.scores["accuracy"] - b.scores["accuracy"])
    assert paired.wilcoxon_p is not None
    assert "Wilcoxon signed-rank" in response.content.decode()


def test_the_label_distribution_chart_puts_humans_next_to_runs(researcher_client):
    split = import_setups(2)
    import_run(split, "fours", value=lambda i: 4)
    data = researcher_client.get("/dashboards/charts/label-distribution.json").json()
    names = [s["name"] for s in data["series"]]
    assert names == ["fours", "humans"]
    assert data["series"][0]["values"] == [0, 0, 0, 100.0, 0]
    assert sum(data["series"][1]["values"]) == pytest.approx(100, abs=0.2)


def test_intervals_say_how_many_replicates_defined_the_spearman(researcher_client):
    split = import_setups(3)
    # constant within two setups: a replicate that draws only those has constant predictions
    run = import_run(split, "steps", value=lambda i: 3 if i < 12 else 1 + i % 5)
    data = researcher_client.get("/dashboards/leaderboard/intervals.json", {"boot": 300}).json()
    found = data["runs"][str(run.id)]
    assert found["replicates"] == 300 and found["defined"]["accuracy"] == 300
    assert 0 < 300 - found["defined"]["spearman"] < 150  # about 300 x (2/3)^3 = 89


def test_the_paired_comparison_counts_its_replicates(researcher_client):
    split = import_setups(3)
    a = import_run(split, "steps-a", value=lambda i: 3 if i < 12 else 1 + i % 5)
    b = import_run(split, "steps-b", value=lambda i: 1 + i % 5)
    html = researcher_client.get("/dashboards/leaderboard/", {"a": a.id, "b": b.id}).content
    paired = html.decode()
    found = re.search(
        r"intervals from (\d+) paired replicates \(the Spearman difference is "
        r"defined in (\d+) of them\)",
        paired,
    )
    assert found and found.group(1) == "1000" and 600 < int(found.group(2)) < 1000
