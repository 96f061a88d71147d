"""Stale-while-revalidate (dashboards.background, docs/dashboards.md "Cache: after a write"):
after a write, a figure that was slow to compute is served from its previous version, marked
stale, while one task recomputes it; a fast one, or one never computed, is computed in its
request as before. "Slow" here: a threshold below any computation's time."""

from __future__ import annotations

import logging
import time

import pytest
from django.core.cache import caches

from annotations.services import rater_exclude, rater_include
from dashboards import background
from dashboards.tasks import refresh_page
from tests.ambisite.test_cache_unavailable import closed_port
from tests.dashboards.helpers import import_run, import_setups, study_ratings

pytestmark = pytest.mark.django_db

INTERVALS = "/dashboards/agreement.json?boot=10"
SLOW = 1e-9  # every computation counts as slow


@pytest.fixture(autouse=True)
def empty_cache():
    caches["dashboards"].clear()


@pytest.fixture
def raters(db):
    split = import_setups(2)
    import_run(split, "run-a")
    return study_ratings(split, {"p1": [1, 2, 3, 4, 5, 1] * 2, "p2": [5, 4, 3, 2, 1, 5] * 2})


@pytest.fixture
def sent(monkeypatch) -> list[tuple]:
    """The refresh tasks the requests enqueued (not sent to a broker)."""
    calls: list[tuple] = []
    monkeypatch.setattr(background, "enqueue", lambda *args: calls.append(args))
    return calls


def refresh_locks() -> list[str]:
    store = caches["dashboards"]
    return [k for k in store._cache if ":dash-refresh:" in k]  # type: ignore[attr-defined]


def test_a_slow_figure_is_served_stale_after_a_write_until_its_task_has_run(
    researcher_client, raters, settings, sent
):
    settings.DASHBOARD_BACKGROUND_AFTER_SECONDS = SLOW
    first = researcher_client.get(INTERVALS)
    assert "stale" not in first.json() and not sent  # never computed: computed here
    rater_exclude(rater=raters[0], source="manual", reason="test")
    stale = researcher_client.get(INTERVALS)
    assert stale.status_code == 200
    assert stale.json()["n_ratings"] == first.json()["n_ratings"]  # the previous version's
    assert stale.json()["stale"]["as_of"] == stale["X-Dashboard-Stale"]
    assert stale["Cache-Control"] == "no-store"
    assert len(sent) == 1 and sent[0][0] == INTERVALS and len(refresh_locks()) == 1
    refresh_page(*sent[0])  # what the worker runs
    assert refresh_locks() == []
    fresh = researcher_client.get(INTERVALS)
    assert "stale" not in fresh.json() and "X-Dashboard-Stale" not in fresh
    assert fresh.json()["n_ratings"] == first.json()["n_ratings"] - 12  # p1's left
    assert len(sent) == 1  # answered from the cache


def test_a_stale_page_says_so_and_refreshes_itself(researcher_client, raters, settings, sent):
    settings.DASHBOARD_BACKGROUND_AFTER_SECONDS = SLOW
    assert "Figures as of" not in researcher_client.get("/dashboards/").content.decode()
    rater_exclude(rater=raters[0], source="manual", reason="test")
    page = researcher_client.get("/dashboards/")
    html = page.content.decode()
    assert page.context["dashboard_stale"] is not None
    assert "Figures as of" in html and "newer ratings are being counted" in html
    assert '<meta http-equiv="refresh" content="5">' in html
    refresh_page(*sent[0])
    assert researcher_client.get("/dashboards/").context["dashboard_stale"] is None


def test_one_task_per_value_until_it_has_run(researcher_client, raters, settings, sent):
    settings.DASHBOARD_BACKGROUND_AFTER_SECONDS = SLOW
    researcher_client.get(INTERVALS)
    rater_exclude(rater=raters[0], source="manual", reason="test")
    for _ in range(3):
        assert "stale" in researcher_client.get(INTERVALS).json()
    assert len(sent) == 1  # the lock held by the first
    refresh_page(*sent[0])
    rater_exclude(rater=raters[1], source="manual", reason="test")
    assert "stale" in researcher_client.get(INTERVALS).json()
    assert len(sent) == 2  # the lock released by the task


def test_a_fast_figure_and_the_background_off_compute_in_the_request(
    researcher_client, raters, settings, sent
):
    for threshold in (60.0, 0, None):  # slower than any computation here; off
        settings.DASHBOARD_BACKGROUND_AFTER_SECONDS = threshold
        before = researcher_client.get(INTERVALS).json()["n_ratings"]
        rater_exclude(rater=raters[0], source="manual", reason="test")
        after = researcher_client.get(INTERVALS)
        assert "stale" not in after.json() and "X-Dashboard-Stale" not in after
        assert after.json()["n_ratings"] == before - 12
        rater_include(rater=raters[0])
    assert not sent


def test_a_refresh_overdue_is_computed_in_the_request(researcher_client, raters, settings, sent):
    settings.DASHBOARD_BACKGROUND_AFTER_SECONDS = SLOW
    settings.DASHBOARD_STALE_MAX_SECONDS = 0  # a task not run at once counts as lost
    before = researcher_client.get(INTERVALS).json()["n_ratings"]
    rater_exclude(rater=raters[0], source="manual", reason="test")
    assert "stale" in researcher_client.get(INTERVALS).json() and len(sent) == 1  # lost
    time.sleep(0.01)
    after = researcher_client.get(INTERVALS).json()
    assert "stale" not in after and after["n_ratings"] == before - 12
    assert refresh_locks() == []  # dropped: the next write's request enqueues again
    rater_exclude(rater=raters[1], source="manual", reason="test")
    assert "stale" in researcher_client.get(INTERVALS).json() and len(sent) == 2


def test_a_value_inside_another_or_inside_the_task_is_never_stale(researcher_client):
    background.PAGE.set(background.Page(path="/dashboards/", user_id=None))
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(background, "background_after", lambda: SLOW)
            assert background.may_serve_stale() is not None
            with background.computing():
                assert background.may_serve_stale() is None
    finally:
        background.PAGE.set(None)
    assert background.may_serve_stale() is None  # outside a dashboards request


def test_a_refresh_not_enqueued_is_tried_again_by_the_next_request(
    researcher_client, raters, settings, monkeypatch, caplog
):
    settings.DASHBOARD_BACKGROUND_AFTER_SECONDS = SLOW
    researcher_client.get(INTERVALS)
    rater_exclude(rater=raters[0], source="manual", reason="test")

    def broker_down(*args):
        raise ConnectionError("broker down")

    monkeypatch.setattr(background, "enqueue", broker_down)
    with caplog.at_level(logging.WARNING, logger="dashboards.middleware"):
        assert "stale" in researcher_client.get(INTERVALS).json()
    assert "dashboard refresh not enqueued" in caplog.text
    assert refresh_locks() == []  # released: the next request enqueues again


def test_a_dashboard_cache_that_is_down_still_answers(researcher_client, raters, settings):
    expected = researcher_client.get(INTERVALS).json()
    settings.DASHBOARD_BACKGROUND_AFTER_SECONDS = SLOW
    settings.CACHES = {
        **settings.CACHES,
        "dashboards": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{closed_port()}/7",
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        },
    }
    for url in (INTERVALS, "/dashboards/", "/dashboards/leaderboard/"):
        assert researcher_client.get(url).status_code == 200, url
    assert researcher_client.get(INTERVALS).json() == expected
    caches["dashboards"].close()


@pytest.mark.parametrize(
    "url",
    [
        "/dashboards/?kind=plausibility",
        "/dashboards/items/?sort=sd",
        "/dashboards/leaderboard/",
        "/dashboards/annotators/",
        "/dashboards/charts/homonym-sd.json",
    ],
)
def test_the_task_leaves_every_figure_of_its_page_cached(
    researcher_client, raters, settings, sent, url, django_assert_max_num_queries
):
    settings.DASHBOARD_BACKGROUND_AFTER_SECONDS = SLOW
    researcher_client.get(url)
    rater_exclude(rater=raters[0], source="manual", reason="test")
    assert "X-Dashboard-Stale" in researcher_client.get(url)
    refresh_page(*sent[0])
    with django_assert_max_num_queries(7):  # test_cache.WARM_QUERIES: from the cache
        assert "X-Dashboard-Stale" not in researcher_client.get(url)
