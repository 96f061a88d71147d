"""Management commands: predict (any AmbiStory file, redacted too), run_model, import."""

from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command

from predictions.evaluation import parse_predictions
from predictions.models import ModelRun
from tests.factories import ambistory_setup
from tests.predictions.runhelpers import small_split


def write(path, data) -> str:
    path.write_text(json.dumps(data))
    return str(path)


def redacted(data: dict) -> dict:
    hidden = {"choices": "(???)", "average": "(???)", "stdev": "(???)", "nonsensical": "(???)"}
    return {key: {**sample, **hidden} for key, sample in data.items()}


@pytest.fixture
def files(tmp_path):
    test = {**ambistory_setup(0, homonym="bank"), **ambistory_setup(6, homonym="bat")}
    train = {**ambistory_setup(0, homonym="pitch"), **ambistory_setup(6, homonym="seal")}
    return {
        "test": write(tmp_path / "test.json", redacted(test)),
        "labelled": write(tmp_path / "labelled.json", test),
        "train": write(tmp_path / "train.json", train),
        "out": str(tmp_path / "out" / "pred.jsonl"),
    }


def predictions_in(path: str, ids) -> dict:
    with open(path, encoding="utf-8") as handle:
        return parse_predictions(handle, ids)


@pytest.mark.django_db
def test_it_predicts_a_redacted_file_in_the_official_format(files):
    call_command(
        "predict", "--backend", "constant", "--input", files["test"], "--output", files["out"]
    )
    values = predictions_in(files["out"], [str(i) for i in range(12)])
    assert set(values.values()) == {4.0}


@pytest.mark.django_db
def test_it_predicts_the_same_random_scores_for_the_same_seed(files, tmp_path):
    other = str(tmp_path / "again.jsonl")
    for out in (files["out"], other):
        call_command(
            "predict",
            "--backend",
            "random",
            "--params",
            '{"seed": 9}',
            "--input",
            files["test"],
            "--output",
            out,
        )
    assert open(files["out"]).read() == open(other).read()
    assert len(set(predictions_in(files["out"], None).values())) == 12


@pytest.mark.django_db
def test_it_tunes_a_constant_on_a_fit_file_never_on_the_input(files):
    call_command(
        "predict",
        "--backend",
        "constant",
        "--params",
        '{"tune": true}',
        "--fit-file",
        files["train"],
        "--input",
        files["test"],
        "--output",
        files["out"],
    )
    assert len(set(predictions_in(files["out"], None).values())) == 1
    with pytest.raises(CommandError, match="also being predicted"):
        call_command(
            "predict",
            "--backend",
            "constant",
            "--params",
            '{"tune": true}',
            "--fit-file",
            files["labelled"],
            "--input",
            files["test"],
            "--output",
            files["out"],
        )


@pytest.mark.django_db
def test_it_names_an_unknown_backend(files):
    with pytest.raises(CommandError, match="unknown backend 'oracle'"):
        call_command(
            "predict", "--backend", "oracle", "--input", files["test"], "--output", files["out"]
        )


@pytest.mark.django_db
def test_run_model_fits_on_the_fit_splits_and_refuses_the_scored_one(capsys):
    small_split("dev")
    small_split("train", first_homonym=4)
    common = ["--backend", "constant", "--params", '{"tune": true}', "--split", "dev", "--now"]
    call_command("run_model", *common, "--fit-split", "train")
    run = ModelRun.objects.get()
    assert run.status == "succeeded" and run.fit_split == "train"
    assert run.fitted_on["split"] == "train" and run.fitted_on["n_samples"] == 24
    with pytest.raises(CommandError, match="scored on"):
        call_command("run_model", *common, "--fit-split", "train,dev")
    with pytest.raises(CommandError, match="params.fit_split"):
        call_command("run_model", *common[:2], "--params", '{"fit_split": "train"}', *common[4:])
    assert ModelRun.objects.count() == 1


@pytest.mark.django_db
def test_it_runs_a_model_run_in_process_and_scores_it(capsys):
    small_split("dev")
    call_command("run_model", "--backend", "random", "--split", "dev", "--now")
    run = ModelRun.objects.get()
    assert run.status == "succeeded" and run.scores["total"] == 24
    assert f"run {run.pk} succeeded" in capsys.readouterr().out


@pytest.mark.django_db
def test_it_imports_a_predictions_file_as_a_scored_run(files, tmp_path):
    small_split("dev")
    lines = [json.dumps({"id": str(i), "prediction": 3.5}) for i in range(24)]
    path = tmp_path / "p.jsonl"
    path.write_text("\n".join(lines) + "\n")
    call_command("import_predictions", str(path), "--split", "dev", "--name", "ext")
    run = ModelRun.objects.get(name="ext")
    assert run.predictions.count() == 24 and run.scores["total"] == 24


@pytest.mark.django_db
def test_it_derives_a_run_from_the_command_line_and_refuses_fitting_on_it(capsys):
    small_split("dev")
    for seed in (1, 2):
        call_command(
            "run_model",
            "--backend",
            "random",
            "--split",
            "dev",
            "--now",
            "--params",
            json.dumps({"seed": seed}),
        )
    a, b = ModelRun.objects.order_by("pk")
    call_command(
        "derive_run", "stack", "--sources", f"{a.pk},{b.pk}", "--fit", "oof", "--folds", "4"
    )
    derived = ModelRun.objects.get(backend="derived:stack")
    assert derived.fitted_on["mode"] == "oof" and derived.scores["total"] == 24
    with pytest.raises(CommandError, match="split being scored"):
        call_command(
            "derive_run",
            "calibrate",
            "--sources",
            str(a.pk),
            "--fit",
            "split",
            "--fit-sources",
            str(b.pk),
        )


@pytest.mark.django_db
def test_train_crossencoder_on_two_splits_records_both_in_the_fit_split(capsys):
    from predictions.models import TrainedModel

    small_split("train")
    small_split("dev", first_homonym=4)
    call_command("train_crossencoder", "--split", "train,dev", "--kind", "biencoder")
    model = TrainedModel.objects.get()
    assert (model.split.name, model.fit_split, model.params) == ("train", "train,dev", {})
    assert f"training job {model.pk} queued" in capsys.readouterr().out
