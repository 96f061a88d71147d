"""Derived runs: calibration, squashing, pair blending and stacking, with their fit recorded."""

from __future__ import annotations

import pytest
from scipy.stats import spearmanr

from predictions.errors import FitOnScoredSamples
from predictions.models import ModelRun
from predictions.runs.postprocess import run_derive
from predictions.runs.scoring import run_labels_and_predictions
from predictions.runs.worker import run_execute
from tests.predictions.runhelpers import small_split

pytestmark = pytest.mark.django_db


def random_run(split, seed: int = 1) -> ModelRun:
    run = ModelRun.objects.create(
        name=f"random {seed}",
        backend="random",
        params={"seed": seed},
        split=split,
        total=split.samples.count(),
    )
    return run_execute(run.pk)


@pytest.fixture
def splits():
    return small_split("dev", setups=5), small_split("train", setups=5, first_homonym=5)


def spearman_of(run: ModelRun) -> float:
    labels, preds = run_labels_and_predictions(run)
    return spearmanr(preds, [sum(x) / len(x) for x in labels])[0]


def test_it_calibrates_on_another_split_without_changing_spearman(splits):
    dev, train = splits
    source, fit_source = random_run(dev), random_run(train)
    run = run_derive(
        name="calibrated", kind="calibrate", sources=[source], fit="split", fit_sources=[fit_source]
    )
    assert run.status == "succeeded" and run.predictions.count() == 30
    assert run.fitted_on["mode"] == "split" and run.fitted_on["split_id"] == train.pk
    assert run.fitted_on["fit_runs"] == [fit_source.pk] and run.fitted_on["n_samples"] == 30
    assert spearman_of(run) == pytest.approx(spearman_of(source), abs=1e-12)
    assert run.scores["spearman"] == pytest.approx(source.scores["spearman"], abs=1e-12)


def test_it_refuses_to_fit_on_the_samples_it_scores(splits):
    dev, _ = splits
    source, again = random_run(dev, 1), random_run(dev, 2)
    with pytest.raises(FitOnScoredSamples):
        run_derive(name="x", kind="calibrate", sources=[source], fit="split", fit_sources=[again])
    assert ModelRun.objects.filter(backend__startswith="derived:").count() == 0


def test_it_squashes_into_the_band_with_given_parameters(splits):
    dev, _ = splits
    source = random_run(dev)
    run = run_derive(
        name="band",
        kind="squash",
        sources=[source],
        fit="none",
        params={"low": 1.95, "high": 4.05, "center": 3.0, "steepness": 3.0},
    )
    values = list(run.predictions.values_list("score", flat=True))
    assert min(values) >= 1.95 and max(values) <= 4.05
    assert run.fitted_on["mode"] == "none"
    assert run.scores["spearman"] == pytest.approx(source.scores["spearman"], abs=1e-12)


def test_it_refuses_parameters_that_make_a_value_infinite_and_stores_nothing(splits):
    """A stored prediction must be finite (``prediction_score_finite``): a zero SD divides
    by zero, and the researcher is told so instead of a database error."""
    dev, _ = splits
    source = random_run(dev)
    params = {"mu": [0.0], "sd": [0.0], "coef": [1.0], "bias": 3.0}
    with pytest.raises(ValueError, match="30 of 30 derived values are NaN or infinite"):
        run_derive(name="x", kind="stack", sources=[source], fit="none", params=params)
    assert ModelRun.objects.filter(backend__startswith="derived:").count() == 0


def test_it_blends_each_sense_with_the_other_sense_of_its_story_out_of_fold(splits):
    dev, _ = splits
    run = run_derive(name="pairs", kind="pair_blend", sources=[random_run(dev)], fit="oof", folds=5)
    assert run.fitted_on == {
        "mode": "oof",
        "grouped_by": "homonym",
        "folds": 5,
        "split": str(dev),
        "split_id": dev.pk,
        "runs": run.params["sources"],
    }
    assert run.predictions.count() == 30


def test_it_stacks_several_runs_out_of_fold_grouped_by_homonym(splits):
    dev, _ = splits
    sources = [random_run(dev, seed) for seed in (1, 2, 3)]
    run = run_derive(name="stack", kind="stack", sources=sources, fit="oof", folds=5)
    assert run.params["sources"] == [r.pk for r in sources]
    assert run.fitted_on["grouped_by"] == "homonym" and run.scores["total"] == 30


def test_it_needs_the_right_number_of_sources(splits):
    dev, _ = splits
    with pytest.raises(ValueError, match="takes 1 source"):
        run_derive(name="x", kind="calibrate", sources=[random_run(dev, 1), random_run(dev, 2)])
