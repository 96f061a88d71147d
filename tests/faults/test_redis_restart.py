"""Redis (the broker) killed and restarted during a model run, with a real Celery worker and a
private PostgreSQL: the run finishes, every sample is predicted once, and the same worker
reconnects and runs the next run sent after the restart."""

from __future__ import annotations

import time

import pytest

from .stack import CeleryWorker, django_script

pytestmark = pytest.mark.faults

CREATE = """
from django.core.management import call_command
from annotations.models import Split
from predictions.runs.services import run_create
from tests.predictions.runhelpers import small_split
call_command("migrate", verbosity=0, interactive=False)
if not Split.objects.filter(name="dev").exists():
    small_split()
split = Split.objects.get(dataset__name="ambistory", name="dev")
params = {{"seed": 3, "batch_size": 2, "sleep_per_batch": {sleep}}}
run = run_create(name="{name}", backend="random", params=params, split=split)
result = {{"id": run.pk}}
"""

STATE = """
from collections import Counter
from predictions.models import ModelRun
run = ModelRun.objects.get(pk={pk})
samples = Counter(run.predictions.values_list("sample_id", flat=True))
result = {{"status": run.status, "done": run.done, "total": run.total,
          "predictions": sum(samples.values()), "most": max(samples.values(), default=0)}}
"""


def _state(url: str, pk: int, broker: str) -> dict:
    return django_script(url, STATE.format(pk=pk), CELERY_BROKER_URL=broker)


# Each phase gets its own budget (a worker's start or a broker reconnect takes seconds on a
# loaded machine); the whole test still stops by itself within 3 x PHASE_SECONDS.
PHASE_SECONDS = 90


def _wait(url, pk, broker, worker, predicate, what):
    deadline = time.monotonic() + PHASE_SECONDS
    state: dict | None = None
    while time.monotonic() < deadline:
        state = _state(url, pk, broker)
        if predicate(state):
            return state
        time.sleep(0.3)
    pytest.fail(f"timed out waiting for {what}: {state}\n{worker.output()[-3000:]}")


def test_a_run_survives_a_broker_restart_without_duplicates(postgres, redis):
    create = CREATE.format(name="slow", sleep=0.4)
    run = django_script(postgres.url, create, CELERY_BROKER_URL=redis.url)["id"]
    worker = CeleryWorker(postgres.url, redis.url)
    try:
        _wait(postgres.url, run, redis.url, worker, lambda s: s["done"] >= 4, "4 done")
        redis.restart()  # SIGKILL, then a fresh empty server on the same port
        state = _wait(
            postgres.url,
            run,
            redis.url,
            worker,
            lambda s: s["status"] in ("succeeded", "failed"),
            "the run to end",
        )
        assert state["status"] == "succeeded", worker.output()[-3000:]
        assert state["predictions"] == state["total"] == state["done"] == 24
        assert state["most"] == 1  # no sample predicted twice
        # the same worker process reconnected: a run sent after the restart is executed
        quick = CREATE.format(name="after", sleep=0)
        after = django_script(postgres.url, quick, CELERY_BROKER_URL=redis.url)["id"]
        state = _wait(
            postgres.url,
            after,
            redis.url,
            worker,
            lambda s: s["status"] == "succeeded",
            "the run sent after the restart",
        )
        assert state["predictions"] == 24 and state["most"] == 1
        assert worker.proc.poll() is None
    finally:
        worker.stop()
