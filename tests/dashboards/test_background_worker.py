"""Stale-while-revalidate with a real Celery worker: the web process (this one) and the worker
share the dashboards' cache on Redis; the request after a write is answered stale and the
worker's task stores the current version, which the next request then gets."""

from __future__ import annotations

import pytest
from django.core.cache import caches

from annotations.services import rater_exclude
from tests.dashboards.helpers import import_run, import_setups, study_ratings
from tests.predictions.test_worker import wait_for, workers  # noqa: F401  (a fixture)

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

INTERVALS = "/dashboards/agreement.json?boot=10"


@pytest.fixture
def shared_cache(settings, monkeypatch):
    from tests.faults.stack import PrivateRedis

    redis = PrivateRedis()
    redis.start()
    monkeypatch.setenv("CACHE_URL", redis.url)  # the worker's settings: the same Redis
    settings.CACHES = {
        **settings.CACHES,
        "dashboards": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": redis.url,
            "KEY_PREFIX": "dash",
        },
    }
    yield
    caches["dashboards"].close()
    redis.kill()


def test_the_worker_recomputes_what_a_request_served_stale(
    researcher_client,
    settings,
    shared_cache,
    workers,  # noqa: F811
):
    split = import_setups(2)
    import_run(split, "run-a")
    p1, _ = study_ratings(split, {"p1": [1, 2, 3, 4, 5, 1] * 2, "p2": [5, 4, 3, 2, 1, 5] * 2})
    settings.DASHBOARD_BACKGROUND_AFTER_SECONDS = 1e-9
    workers.start()
    before = researcher_client.get(INTERVALS).json()["n_ratings"]
    rater_exclude(rater=p1, source="manual", reason="test")
    stale = researcher_client.get(INTERVALS).json()
    assert stale["n_ratings"] == before and "stale" in stale

    def fresh():
        found = researcher_client.get(INTERVALS).json()
        return None if "stale" in found else found

    found = wait_for(fresh, workers, timeout=60, what="the worker's refresh")
    assert found["n_ratings"] == before - 12
    assert "dashboards.refresh_page" in workers.logs()


def test_the_worker_precomputes_the_default_pages_after_an_import(
    researcher_client,
    settings,
    shared_cache,
    workers,  # noqa: F811
):
    from dashboards.precompute import default_paths
    from tests.dashboards.test_precompute import computing_fails

    settings.DASHBOARD_BACKGROUND_AFTER_SECONDS = 0.3  # on, as with CACHE_URL on Redis
    workers.start()
    import_setups(2)  # committed: its announcement enqueues the precompute

    def precomputed() -> bool:  # the pages are never computed here: only read
        with pytest.MonkeyPatch.context() as patch:
            computing_fails(patch)
            try:
                return all(researcher_client.get(p).status_code == 200 for p in default_paths())
            except AssertionError:  # not cached yet
                return False

    wait_for(precomputed, workers, timeout=90, what="the worker's precompute")
    assert "dashboards.precompute" in workers.logs()
