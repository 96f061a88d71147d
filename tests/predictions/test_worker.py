"""Real Celery worker processes against the broker (Redis on CI) and the test database.

Each test starts ``celery -A ambisite worker --pool=solo -c 1`` as a subprocess pointed at
the pytest database, and kills every worker it started in teardown. On SQLite the test
database must be a file (set ``SQLITE_TEST_NAME=var/test-runs.sqlite3``); CI uses
PostgreSQL.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings

from predictions.models import ModelRun
from predictions.runs.services import run_cancel, run_create, run_retry
from tests.predictions.runhelpers import small_split

ROOT = Path(__file__).resolve().parents[2]
NODE = "runs-test@%h"

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def database_url() -> str:
    db = settings.DATABASES["default"]
    if db["ENGINE"].endswith("sqlite3"):
        name = str(db["NAME"])
        if name == ":memory:" or name.startswith("file:memorydb"):
            # Never on CI (PostgreSQL); a local in-memory SQLite run says how to include these.
            pytest.skip("worker tests on SQLite need SQLITE_TEST_NAME=var/test-runs.sqlite3")
        return f"sqlite:///{Path(name).resolve()}"
    auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


class Workers:
    """Starts worker processes (each in its own process group) and kills them all."""

    def __init__(self, log_dir: Path):
        self.procs: list[subprocess.Popen] = []
        self.log_dir = log_dir

    def start(self) -> subprocess.Popen:
        env = {**os.environ, "DATABASE_URL": database_url()}
        env["CELERY_BROKER_URL"] = settings.CELERY_BROKER_URL
        env.pop("CELERY_TASK_ALWAYS_EAGER", None)
        log = open(self.log_dir / f"worker-{len(self.procs)}.log", "w")  # noqa: SIM115
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "ambisite",
                "worker",
                "--pool=solo",
                "-c",
                "1",
                "-n",
                NODE,
                "--loglevel=info",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.procs.append(proc)
        return proc

    def kill(self, proc: subprocess.Popen) -> None:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)

    def logs(self) -> str:
        return "\n".join(p.read_text() for p in sorted(self.log_dir.glob("*.log")))


@pytest.fixture
def workers(tmp_path):
    from ambisite.celery import app

    app.control.purge()  # messages left by earlier sessions would point at other rows
    pool = Workers(tmp_path)
    yield pool
    for proc in pool.procs:
        pool.kill(proc)


def wait_for(predicate, workers: Workers, timeout: float = 90.0, what: str = ""):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    pytest.fail(f"timed out waiting for {what}\n--- worker logs ---\n{workers.logs()[-4000:]}")


def fresh(run: ModelRun) -> ModelRun:
    return ModelRun.objects.get(pk=run.pk)


def start_slow_run(split, *, batch_size: int, sleep: float) -> ModelRun:
    params = {"seed": 3, "batch_size": batch_size, "sleep_per_batch": sleep}
    return run_create(name="slow", backend="random", params=params, split=split)


def test_it_runs_a_queued_run_to_the_end_in_a_worker_and_scores_it(workers):
    split = small_split()
    run = start_slow_run(split, batch_size=4, sleep=0.05)
    workers.start()
    done = wait_for(
        lambda: fresh(run).status == ModelRun.Status.SUCCEEDED and fresh(run),
        workers,
        what="the run to succeed",
    )
    assert done.done == done.total == 24 == done.predictions.count()
    assert done.scores["total"] == 24 and done.worker.startswith("runs-test@")
    assert done.rate > 0 and done.finished_at >= done.started_at


def test_it_stops_a_cancelled_run_and_finishes_it_on_retry(workers):
    split = small_split()
    run = start_slow_run(split, batch_size=2, sleep=0.3)
    workers.start()
    wait_for(lambda: fresh(run).done >= 4, workers, what="four predictions")
    run_cancel(run=fresh(run))
    time.sleep(1.5)  # longer than a batch: the worker must have stopped by now
    stopped = fresh(run).predictions.count()
    time.sleep(1.0)
    assert fresh(run).status == ModelRun.Status.CANCELLED
    assert fresh(run).predictions.count() == stopped < 24
    run_retry(run=fresh(run))
    wait_for(lambda: fresh(run).status == ModelRun.Status.SUCCEEDED, workers, what="retry")
    assert fresh(run).predictions.count() == 24


def test_it_resumes_a_run_whose_worker_was_killed_without_duplicates_or_losses(workers):
    split = small_split()
    run = start_slow_run(split, batch_size=2, sleep=0.3)
    first = workers.start()
    wait_for(lambda: fresh(run).done >= 6, workers, what="six predictions")
    workers.kill(first)  # SIGKILL: no chance to clean up
    before = dict(fresh(run).predictions.values_list("sample_id", "score"))
    assert fresh(run).status == ModelRun.Status.RUNNING and 6 <= len(before) < 24
    workers.start()  # the same node name: it re-queues what it had left running
    wait_for(lambda: fresh(run).status == ModelRun.Status.SUCCEEDED, workers, what="resume")
    after = list(fresh(run).predictions.values_list("sample_id", "score"))
    assert len(after) == len({pk for pk, _ in after}) == 24
    assert {pk for pk, _ in after} == set(split.samples.values_list("pk", flat=True))
    assert all(dict(after)[pk] == score for pk, score in before.items())
    assert fresh(run).scores["total"] == 24


@pytest.mark.ml
def test_it_trains_a_cross_encoder_in_the_worker_and_stores_the_artifact(
    workers, tmp_path, monkeypatch
):
    from predictions.models import TrainedModel
    from predictions.runs.services import trained_model_create

    artifacts = tmp_path / "artifacts"
    monkeypatch.setenv("ARTIFACT_ROOT", str(artifacts))  # read by the worker's settings
    job = trained_model_create(
        name="tiny",
        split=small_split("train", setups=2),
        params={"epochs": 1, "limit": 8, "batch_size": 8, "max_seq_length": 48},
    )
    workers.start()
    model = wait_for(
        lambda: (m := TrainedModel.objects.get(pk=job.pk)).status in ("succeeded", "failed") and m,
        workers,
        timeout=180,
        what="the training job",
    )
    assert model.status == "succeeded", model.error
    assert (artifacts / model.path / "train_log.json").is_file()
    assert "epoch 1" in model.log and model.n_samples == 8
