"""predictions.worker in this process: the run loop's batches, resume, progress, cancellation,
failure and claiming (tests/predictions/test_worker.py runs real worker processes)."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection, connections

from predictions.backends.base import PredictionOutput
from predictions.errors import FitOnScoredSamples
from predictions.io.files import predict_samples
from predictions.models import ModelRun, Prediction
from predictions.runs.claims import run_claim
from predictions.runs.rows import batches, split_rows
from predictions.runs.services import runs_recover
from predictions.runs.worker import Progress, run_execute
from tests.predictions.runhelpers import (
    TEST_BACKENDS,
    PausingBackend,
    RecordingBackend,
    SlowFitBackend,
    small_split,
    texts_of,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def test_backends(settings):
    settings.AMBISITE_BACKENDS = TEST_BACKENDS
    RecordingBackend.seen.clear()


def make_run(split, backend="recording", params=None, **fields) -> ModelRun:
    return ModelRun.objects.create(
        name="t",
        backend=backend,
        params=params or {},
        split=split,
        total=split.samples.count(),
        **fields,
    )


def test_it_predicts_every_sample_once_and_scores_the_finished_run():
    split = small_split()
    run = run_execute(make_run(split).pk)
    assert run.status == ModelRun.Status.SUCCEEDED
    assert run.done == run.total == 24 == run.predictions.count()
    assert [len(b) for b in RecordingBackend.seen] == [5, 5, 5, 5, 4]
    assert run.scores["total"] == 24 and run.scores["spearman"] is None  # constant 3.0
    assert run.started_at <= run.finished_at
    assert run.code_version and run.model_version == "recording"


def test_it_resumes_by_skipping_samples_that_already_have_a_prediction():
    split = small_split()
    run = make_run(split, status=ModelRun.Status.RUNNING, worker="dead@host")
    first = list(split.samples.order_by("position")[:7])
    Prediction.objects.bulk_create([Prediction(run=run, sample=s, score=5.0) for s in first])
    run = run_execute(run.pk, worker="dead@host")  # the same node restarted
    assert run.status == ModelRun.Status.SUCCEEDED and run.predictions.count() == 24
    asked = [sid for batch in RecordingBackend.seen for sid in batch]
    assert len(asked) == 17 and not {s.dataset_id for s in first} & set(asked)
    assert run.predictions.filter(score=5.0).count() == 7  # earlier work kept as it was


def test_it_keeps_the_stories_of_a_batch_whole_when_the_backend_needs_it(monkeypatch):
    monkeypatch.setattr(RecordingBackend, "needs_whole_stories", True)
    split = small_split()
    run_execute(make_run(split, params={"batch_size": 3}).pk)
    stories = dict(split.samples.values_list("dataset_id", "story_id"))
    seen = [{stories[i] for i in batch} for batch in RecordingBackend.seen]
    for k, batch in enumerate(seen):
        assert not any(batch & other for other in seen[k + 1 :])
    assert all(len(b) == 4 for b in RecordingBackend.seen)  # 3 rounded up to whole stories


def test_it_keeps_the_setups_of_a_batch_whole_when_the_backend_needs_it(monkeypatch):
    monkeypatch.setattr(RecordingBackend, "needs_whole_setups", True)
    split = small_split(setups=4)
    run_execute(make_run(split, params={"batch_size": 4}).pk)
    setup_of = dict(split.samples.values_list("dataset_id", "story__setup_id"))
    seen = [{setup_of[i] for i in batch} for batch in RecordingBackend.seen]
    for k, batch in enumerate(seen):
        assert not any(batch & other for other in seen[k + 1 :])
    assert [len(b) for b in RecordingBackend.seen] == [6, 6, 6, 6]  # 4 rounded up to a setup


def test_predict_on_files_keeps_the_setups_of_a_batch_whole_too():
    backend = RecordingBackend(batch_size=4)
    backend.needs_whole_setups = True
    samples = [  # two setups of three stories, their stories interleaved
        {
            "id": f"{k}-{e}-{m}",
            "homonym": f"w{k}",
            "precontext": "",
            "sentence": f"s{k}",
            "ending": e,
            "judged_meaning": m,
        }
        for e in ("", "x", "y")
        for k in (0, 1)
        for m in ("a", "b")
    ]
    outputs = predict_samples(backend, samples)
    assert len(outputs) == 12
    assert [sorted({i.split("-")[0] for i in b}) for b in RecordingBackend.seen] == [["0"], ["1"]]


def test_it_stops_between_batches_when_the_run_is_cancelled():
    split = small_split()
    run = run_execute(make_run(split, backend="cancelling").pk)
    assert run.status == ModelRun.Status.CANCELLED
    assert len(RecordingBackend.seen) == 1 and run.predictions.count() == 5
    assert run.finished_at is not None and run.done == 5  # the worker confirmed the cancel


def test_it_records_the_error_and_keeps_the_batches_done_before_a_failure():
    split = small_split()
    run = run_execute(make_run(split, params={"fail_at_batch": 2}).pk)
    assert run.status == ModelRun.Status.FAILED and "model server went away" in run.error
    assert run.predictions.count() == 10 and run.finished_at is not None


def test_it_records_progress_with_a_rate_and_time_left():
    progress = Progress(total=100, done_at_start=20, started=10.0)
    assert progress.rate(20, now=12.0) is None
    assert progress.rate(30, now=12.0) == 5.0  # resumed samples do not count as speed
    assert progress.eta(30, now=12.0) == 14.0
    split = small_split()
    run = run_execute(make_run(split).pk)
    assert run.rate and run.rate > 0 and run.eta_seconds is None  # finished: no ETA
    run.status, run.done, run.rate = ModelRun.Status.RUNNING, 4, 2.0
    assert run.eta_seconds == 10.0 and run.percent == pytest.approx(100 * 4 / 24)


def test_it_batches_without_splitting_groups():
    items = [1, 1, 1, 2, 2, 3, 4, 4, 4, 4]
    assert list(batches(items, 2, group_of=lambda x: x)) == [[1, 1, 1], [2, 2], [3, 4, 4, 4, 4]]
    assert list(batches(items, 4)) == [items[:4], items[4:8], items[8:]]


def test_it_lets_only_one_worker_claim_a_run():
    split = small_split()
    run = make_run(split)
    assert run_claim(run.pk, "a@host")
    assert not run_claim(run.pk, "b@host")  # a is alive: its heartbeat is fresh
    assert run_execute(run.pk, worker="b@host") is None
    assert run_claim(run.pk, "a@host")  # a restarted under the same name


def test_it_requeues_runs_left_running_by_a_restarted_node(django_capture_on_commit_callbacks):
    split = small_split()
    lost = make_run(split, status=ModelRun.Status.RUNNING, worker="w1@host")
    other = make_run(split, status=ModelRun.Status.RUNNING, worker="w2@host")
    from django.utils import timezone

    ModelRun.objects.filter(pk=other.pk).update(heartbeat_at=timezone.now())
    with django_capture_on_commit_callbacks() as callbacks:
        assert runs_recover(worker="w1@host") == [lost.pk]
    assert len(callbacks) == 1
    lost.refresh_from_db()
    other.refresh_from_db()
    assert lost.status == ModelRun.Status.QUEUED and other.status == ModelRun.Status.RUNNING


def test_it_fits_a_tuned_constant_on_another_split_and_records_it():
    split = small_split("dev")
    small_split("train", first_homonym=4)
    run = make_run(split, backend="constant", params={"tune": True}, fit_split="train")
    run = run_execute(run.pk)
    assert run.status == ModelRun.Status.SUCCEEDED
    assert run.fitted_on["split"] == "train" and run.fitted_on["n_samples"] == 24
    assert "tuned" in run.model_version


def test_it_refuses_to_fit_on_the_split_it_scores():
    split = small_split("dev")
    run = make_run(split, backend="constant", params={"tune": True}, fit_split="dev")
    run = run_execute(run.pk)
    assert run.status == ModelRun.Status.FAILED and FitOnScoredSamples.__name__ in run.error
    assert run.predictions.count() == 0


def test_whole_story_batches_keep_both_senses_of_a_story_together():
    from predictions.runs.rows import batches, stories_together, story_key

    def sample(sense, ending):
        return {
            "homonym": "bank",
            "precontext": "p",
            "sentence": "s",
            "ending": ending,
            "judged_meaning": sense,
        }

    items = [
        sample("money", "a"),
        sample("money", "b"),
        sample("river", "a"),
        sample("river", "b"),
        sample("money", ""),
        sample("river", ""),
    ]
    ordered = stories_together(items, story_key)
    assert [(s["ending"], s["judged_meaning"]) for s in ordered] == [
        ("a", "money"),
        ("a", "river"),
        ("b", "money"),
        ("b", "river"),
        ("", "money"),
        ("", "river"),
    ]
    for batch in batches(ordered, 3, group_of=story_key):
        endings = [s["ending"] for s in batch]
        assert all(endings.count(e) == 2 for e in endings)


def test_a_long_fit_keeps_the_run_alive_through_the_backends_heartbeat():
    from django.utils import timezone

    from predictions.runs.claims import stale_after

    run = run_execute(make_run(small_split(), backend="slow_fit").pk)
    assert run.status == ModelRun.Status.SUCCEEDED
    (beat,) = SlowFitBackend.heartbeats
    assert beat > timezone.now() - stale_after()  # refreshed during prepare, not stale


def test_a_failed_run_stores_a_short_error_and_logs_the_traceback(caplog):
    split = small_split("dev")
    run = make_run(split, backend="constant", params={"tune": True}, fit_split="dev")
    run = run_execute(run.pk)
    assert run.status == ModelRun.Status.FAILED
    assert run.error.startswith(FitOnScoredSamples.__name__ + ": ")
    assert "Traceback" not in run.error and "\n" not in run.error and len(run.error) <= 300
    assert "Traceback" in caplog.text or any(r.exc_info for r in caplog.records)


def test_a_worker_whose_run_was_taken_over_cannot_finish_or_fail_it():
    """Retried or recovered while worker "a" wrote its last batch, the run is worker "b"'s:
    a's end of the loop must not close b's execution (before: it set it succeeded or
    failed, and b went on predicting into a finished run)."""
    from predictions.runs.worker import run_fail, run_finish

    split = small_split()
    run = make_run(split, status=ModelRun.Status.RUNNING, worker="b")
    Prediction.objects.bulk_create(
        Prediction(run=run, sample=s, score=3.0) for s in split.samples.all()
    )
    assert run_finish(run, worker="a")  # nothing left for a to do
    run_fail(run.pk, "RuntimeError: a's backend", worker="a")
    run.refresh_from_db()
    assert (run.status, run.worker, run.error, run.finished_at) == ("running", "b", "", None)
    assert run_finish(run, worker="b")  # its holder can
    run.refresh_from_db()
    assert run.status == ModelRun.Status.SUCCEEDED and run.done == 24


def test_a_run_is_not_finished_while_a_sample_has_no_prediction():
    """A reference edit may drop a prediction after the worker's last pass: its holder is
    told to go on (False) and the run stays running."""
    from predictions.runs.worker import run_finish

    split = small_split()
    run = make_run(split, status=ModelRun.Status.RUNNING, worker="b")
    some = split.samples.order_by("position")[:20]
    Prediction.objects.bulk_create(Prediction(run=run, sample=s, score=3.0) for s in some)
    assert not run_finish(run, worker="b")
    run.refresh_from_db()
    assert (run.status, run.finished_at, run.scores) == ("running", None, None)


def test_a_run_whose_texts_keep_changing_fails_after_its_passes_instead_of_looping(monkeypatch):
    """Each pass predicts only the samples without a prediction; when the texts of some keep
    changing (here: every write finds one sample's versions changed), the run fails after
    ``MAX_PASSES`` with a reason, and keeps what it predicted."""
    from predictions.runs import worker

    split = small_split()
    run = make_run(split)
    unlucky = split.samples.order_by("position").first().pk
    locked = worker.versions_locked

    def changed_every_time(sample_ids):
        found = locked(sample_ids)
        if unlucky in found:
            found[unlucky] = (-1, -1, None)  # as if an edit had committed just before
        return found

    monkeypatch.setattr(worker, "versions_locked", changed_every_time)
    monkeypatch.setattr(worker, "MAX_PASSES", 3)
    run_execute(run.pk)
    run.refresh_from_db()
    assert run.status == ModelRun.Status.FAILED
    assert "1 samples still had no prediction after 3 passes" in run.error
    assert run.predictions.count() == split.samples.count() - 1


def test_a_later_pass_reads_only_the_samples_still_without_a_prediction(monkeypatch):
    """A reference edit during a pass leaves a sample without a prediction; the next pass
    reads (and predicts) that sample's new texts only, not every text of the split again."""
    from predictions.runs import rows, worker

    split = small_split()
    run = make_run(split)
    unlucky = split.samples.order_by("position").first()
    locked, backend_dict = worker.versions_locked, rows.backend_dict
    edits: list[int] = []

    def changed_once(sample_ids):
        found = locked(sample_ids)
        if unlucky.pk in found and not edits:
            edits.append(unlucky.pk)
            found[unlucky.pk] = (-1, -1, None)  # as if an edit had committed just before
        return found

    read: list[int] = []

    def reading(sample):
        read.append(sample.pk)
        return backend_dict(sample)

    monkeypatch.setattr(worker, "versions_locked", changed_once)
    monkeypatch.setattr(rows, "backend_dict", reading)
    run = run_execute(run.pk)
    assert run.status == ModelRun.Status.SUCCEEDED and run.predictions.count() == 24
    assert len(read) == 24 + 1 and read[-1] == unlucky.pk  # before: 24 + 24
    assert RecordingBackend.seen[-1] == [unlucky.dataset_id]


@pytest.mark.parametrize(
    "output",
    [
        PredictionOutput(score=float("inf")),
        PredictionOutput(score=float("nan")),
        PredictionOutput(score=3.0, distribution=(0.2, 0.2, float("nan"), 0.2, 0.2)),
    ],
)
def test_a_non_finite_prediction_fails_the_run_naming_the_sample(monkeypatch, output):
    """A backend that answers NaN or infinity (a broken model server, a division by zero)
    fails the run with the sample named; nothing of that batch is stored."""
    split = small_split()
    run = make_run(split)
    monkeypatch.setattr(
        RecordingBackend, "predict_batch", lambda self, samples: [output] * len(samples)
    )
    run_execute(run.pk)
    run.refresh_from_db()
    first = split.samples.order_by("position").first()
    assert run.status == ModelRun.Status.FAILED
    assert f"non-finite prediction for sample {first.dataset_id}" in run.error
    assert run.predictions.count() == 0


def test_a_numpy_score_is_a_number_like_any_other(monkeypatch):
    """``output_check`` refuses what is not a finite real; numpy's reals (a model's float32
    output) are reals and are stored as floats."""
    import numpy as np

    split = small_split()
    run = make_run(split)
    monkeypatch.setattr(
        RecordingBackend,
        "predict_batch",
        lambda self, samples: [PredictionOutput(score=np.float32(3.5)) for _ in samples],
    )
    run_execute(run.pk)
    run.refresh_from_db()
    assert run.status == ModelRun.Status.SUCCEEDED
    assert set(run.predictions.values_list("score", flat=True)) == {3.5}


def test_a_reference_text_edit_drops_an_unfinished_runs_predictions_of_the_samples_showing_it():
    """A run that failed half way, then an edit of a story's reference ending, then a
    retry: the retry predicted only what was left and kept what the model had said about
    the old story (scored against the new labels). Now the unfinished run drops the edited
    story's predictions, and its retry predicts them on the new text; a finished run keeps
    its predictions (its scoring pages say the labels changed)."""
    from annotations.reference import reference_edit_impact, reference_texts_edit

    split = small_split()
    failed = make_run(split, params={"fail_at_batch": 2})
    run_execute(failed.pk)  # 2 batches of 5 predicted, then the backend failed
    finished = make_run(split)
    run_execute(finished.pk)
    failed.refresh_from_db()
    assert (failed.status, failed.done) == ("failed", 10)
    sample = split.samples.order_by("position").first()  # predicted in the first batch
    story = list(split.samples.filter(story=sample.story).values_list("pk", flat=True))
    assert len(story) == 2 and Prediction.objects.filter(run=failed, sample__in=story).count() == 2
    texts = {"ending": "A new ending, written again."}
    impact = reference_edit_impact(sample=sample, texts=texts)
    reference_texts_edit(sample=sample, texts=texts, confirm_labels=impact.labels)
    failed.refresh_from_db()
    assert failed.done == 8 and not Prediction.objects.filter(run=failed, sample__in=story)
    assert Prediction.objects.filter(run=finished).count() == finished.total  # kept
    failed.status, failed.params = ModelRun.Status.QUEUED, {}
    failed.save(update_fields=["status", "params"])
    RecordingBackend.seen.clear()
    run_execute(failed.pk)
    failed.refresh_from_db()
    assert failed.status == "succeeded" and failed.done == failed.total
    assert {sid for batch in RecordingBackend.seen for sid in batch} >= {
        s.dataset_id for s in split.samples.filter(pk__in=story)
    }


def texts_now(split) -> dict[int, str]:
    return {row.pk: texts_of(row.sample) for row in split_rows(split)}


def in_thread(target, errors: list) -> threading.Thread:
    """``target`` in a thread with its own database connection, its error kept."""

    def run() -> None:
        try:
            target()
        except Exception as exc:  # asserted on in the test
            errors.append(exc)
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


@pytest.mark.parametrize(
    "pause_at, held",
    [
        (0, False),  # the edit commits while the first batch is being predicted
        (0, True),  # ... and is still under way while the worker writes that batch
        (4, True),  # it drops an earlier batch's prediction as the run finishes
    ],
)
@pytest.mark.django_db(transaction=True)
def test_a_run_running_across_a_reference_edit_ends_with_predictions_of_the_new_texts(
    monkeypatch, pause_at, held
):
    """A run read its texts at its start and wrote what the backend said about them: a
    setup edited while it ran kept the old texts' predictions (those of samples it had not
    reached, those of the batch it was predicting, and any written while the edit was under
    way), or lost one as it finished, and succeeded so."""
    from annotations.reference import reference_edit_impact, reference_texts_edit
    from annotations.signals import reference_texts_changed

    if connection.vendor != "postgresql":
        pytest.skip("row locks need PostgreSQL (CI runs it there)")
    monkeypatch.setattr(PausingBackend, "pause_at", pause_at)
    PausingBackend.paused.clear()
    PausingBackend.proceed.clear()
    in_edit, commit = threading.Event(), threading.Event()

    def hold(**kwargs) -> None:  # after the runs' receiver, inside the edit's transaction
        in_edit.set()
        assert commit.wait(timeout=30)

    split = small_split()  # 24 samples in batches of 5; the first setup's are 0..5
    run = make_run(split, backend="pausing")
    sample = split.samples.order_by("position").first()
    texts = {"precontext": "A new precontext, written while the model ran."}
    errors: list = []
    worker = in_thread(lambda: run_execute(run.pk, worker="w"), errors)
    assert PausingBackend.paused.wait(timeout=30)

    def edit() -> None:
        impact = reference_edit_impact(sample=sample, texts=texts)
        reference_texts_edit(sample=sample, texts=texts, confirm_labels=impact.labels)

    if held:
        reference_texts_changed.connect(hold, weak=False, dispatch_uid="test.hold")
    try:
        editor = in_thread(edit, errors)
        if held:
            assert in_edit.wait(timeout=30)
        else:
            editor.join(timeout=30)
        PausingBackend.proceed.set()
        time.sleep(0.5)  # the worker writes its batch (or waits for the edit's locks)
        commit.set()
        editor.join(timeout=30)
        worker.join(timeout=60)
    finally:
        reference_texts_changed.disconnect(dispatch_uid="test.hold")
        PausingBackend.proceed.set()
        commit.set()
    assert not errors and not worker.is_alive() and not editor.is_alive()
    run.refresh_from_db()
    assert (run.status, run.done, run.error) == ("succeeded", 24, "")
    made = dict(run.predictions.values_list("sample_id", "raw_output"))
    assert made == texts_now(split)  # every sample's prediction is of its current texts
    assert texts["precontext"] in made[sample.pk]
