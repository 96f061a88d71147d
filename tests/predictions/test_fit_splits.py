"""Fitting on several splits (the ``fit_split`` field, ``"train,dev"``) for runs, training jobs
and the predict command, and the one rule that nothing is fitted on the samples it scores."""

from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command

from predictions.backends import ParamError
from predictions.errors import FitOnScoredSamples, PredictionsError
from predictions.models import ModelRun, TrainedModel
from predictions.runs.rows import fit_rows, split_names, trained_splits
from predictions.runs.services import run_create, trained_model_create
from predictions.runs.worker import run_execute
from tests.factories import ambistory_setup
from tests.predictions.runhelpers import small_split

pytestmark = pytest.mark.django_db


@pytest.fixture
def three_splits():
    """train (24 samples), dev (12) and test (12), no homonym shared."""
    return (
        small_split("train", setups=4, first_homonym=0),
        small_split("dev", setups=2, first_homonym=4),
        small_split("test", setups=2, first_homonym=6),
    )


@pytest.mark.parametrize(
    "value, names",
    [
        ("train,dev", ["train", "dev"]),
        (" train , dev ,train", ["train", "dev"]),
        (["dev", "train"], ["dev", "train"]),
        ("train", ["train"]),
        ("", []),
        (None, []),
    ],
)
def test_split_names_reads_one_name_a_comma_list_or_a_list(value, names):
    assert split_names(value) == names


def test_a_run_fits_on_train_and_dev_together_and_records_both(three_splits):
    _, _, test = three_splits
    run = run_create(
        name="t", backend="constant", split=test, enqueue=False,
        params={"tune": True}, fit_split=" train, dev",
    )  # fmt: skip
    assert run.fit_split == "train,dev" and run.params == {"tune": True}
    run = run_execute(run.pk)
    assert run.status == ModelRun.Status.SUCCEEDED, run.error
    assert run.fitted_on["split"] == "train+dev" and run.fitted_on["n_samples"] == 36
    assert len(run.fitted_on["split_ids"]) == 2


@pytest.mark.parametrize("fit_split", ["train,test", ["test"], "dev,test"])
def test_a_run_is_refused_when_any_fit_split_is_the_scored_split(three_splits, fit_split):
    _, _, test = three_splits
    with pytest.raises(FitOnScoredSamples):
        run_create(
            name="t", backend="constant", split=test, params={"tune": True}, fit_split=fit_split
        )
    assert not ModelRun.objects.exists()


def test_a_run_naming_an_unknown_split_is_refused(three_splits):
    _, _, test = three_splits
    with pytest.raises(PredictionsError, match="'nope'"):
        run_create(name="t", backend="constant", split=test, params={}, fit_split="train,nope")


@pytest.mark.parametrize("create", ["run", "training job"])
def test_fit_split_inside_params_is_refused_naming_the_field(three_splits, create):
    train, _, test = three_splits
    with pytest.raises(ParamError, match='params.fit_split: not a parameter: give "fit_split"'):
        if create == "run":
            run_create(name="t", backend="constant", split=test, params={"fit_split": "train"})
        else:
            trained_model_create(name="t", split=train, params={"fit_split": "train,dev"})
    assert not ModelRun.objects.exists() and not TrainedModel.objects.exists()


def test_the_worker_refuses_fit_samples_that_are_also_scored(three_splits):
    train, _, test = three_splits
    run = ModelRun.objects.create(  # written past the service's checks, e.g. an old row
        name="t", backend="constant", params={"tune": True}, fit_split="train,test",
        split=test, total=12,
    )  # fmt: skip
    run = run_execute(run.pk)
    assert run.status == ModelRun.Status.FAILED and FitOnScoredSamples.__name__ in run.error


def test_a_training_job_on_train_and_dev_trains_on_both(three_splits):
    train, dev, _ = three_splits
    job = trained_model_create(name="", split=train, kind="biencoder", fit_split="train,dev")
    assert (job.fit_split, job.params, job.name) == ("train,dev", {}, "biencoder on train+dev")
    assert [s.name for s in trained_splits(job)] == ["train", "dev"]
    assert len(fit_rows(trained_splits(job))) == 36


def test_a_training_job_must_include_its_own_split_and_known_ones(three_splits):
    train, _, _ = three_splits
    with pytest.raises(PredictionsError, match="must include"):
        trained_model_create(name="x", split=train, fit_split="dev")
    with pytest.raises(PredictionsError, match="'nope'"):
        trained_model_create(name="x", split=train, fit_split="train,nope")
    assert not TrainedModel.objects.exists()


def test_a_run_may_not_score_a_split_its_trained_model_was_trained_on(three_splits):
    train, dev, test = three_splits
    job = trained_model_create(name="both", split=train, kind="biencoder", fit_split="train,dev")
    uses = [("biencoder", {"model": job.pk}), ("quality", {"encoder": job.pk})]
    for backend, params in uses:
        with pytest.raises(FitOnScoredSamples):
            run_create(name="t", backend=backend, split=dev, params=params)
    run = run_create(name="ok", backend="biencoder", split=test, params={"model": job.pk})
    assert run.params == {"model": job.pk}


def test_predict_fits_on_several_splits_and_says_so(three_splits, tmp_path, capsys):
    data = {**ambistory_setup(0, homonym="crane"), **ambistory_setup(6, homonym="mole")}
    hidden = {"choices": "(???)", "average": "(???)", "stdev": "(???)", "nonsensical": "(???)"}
    new_file = tmp_path / "new.json"
    new_file.write_text(json.dumps({k: {**v, **hidden} for k, v in data.items()}))
    out = tmp_path / "pred.jsonl"
    call_command(
        "predict", "--backend", "constant", "--params", '{"tune": true}',
        "--fit-split", "train,dev", "--input", str(new_file), "--output", str(out),
    )  # fmt: skip
    printed = capsys.readouterr()
    assert "fitting constant on 36 samples of train+dev" in printed.err
    assert "12 predictions written" in printed.out
    assert len(out.read_text().splitlines()) == 12


def test_predict_refuses_to_fit_on_a_split_that_holds_the_input(three_splits, tmp_path):
    data = {  # the very texts of the "test" split
        **ambistory_setup(0, homonym="crane", sentence="test crane."),
        **ambistory_setup(6, homonym="mole", sentence="test mole."),
    }
    same = tmp_path / "same.json"
    same.write_text(json.dumps(data))
    with pytest.raises(CommandError, match="also being predicted"):
        call_command(
            "predict", "--backend", "constant", "--params", '{"tune": true}',
            "--fit-split", "train,test", "--input", str(same),
            "--output", str(tmp_path / "p.jsonl"),
        )  # fmt: skip


def test_the_migration_moves_fit_split_out_of_params_into_the_field_and_back(three_splits):
    from importlib import import_module

    from django.apps import apps

    train, _, test = three_splits
    run = ModelRun.objects.create(
        name="old", backend="constant", params={"tune": True, "fit_split": " train,dev,train"},
        split=test, total=12,
    )  # fmt: skip
    plain = ModelRun.objects.create(name="plain", backend="random", params={"seed": 1}, split=test)
    job = TrainedModel.objects.create(name="j", split=train, params={"fit_split": ["train", "dev"]})
    migration = import_module("predictions.migrations.0005_fit_split_field")
    migration.params_to_field(apps, None)
    for row in (run, plain, job):
        row.refresh_from_db()
    assert (run.fit_split, run.params) == ("train,dev", {"tune": True})
    assert (plain.fit_split, plain.params) == ("", {"seed": 1})
    assert (job.fit_split, job.params) == ("train,dev", {})
    assert [s.name for s in trained_splits(job)] == ["train", "dev"]
    migration.field_to_params(apps, None)
    run.refresh_from_db()
    assert (run.fit_split, run.params) == ("", {"tune": True, "fit_split": "train,dev"})
