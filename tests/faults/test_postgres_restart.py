"""PostgreSQL stopped and started under a running study (private cluster, real gunicorn, real
HTTP): while it is down participants get the site's 503 "try again" page with Retry-After,
nothing is half-written, and once it is back the SAME gunicorn workers serve again."""

from __future__ import annotations

import time
from collections import Counter

import pytest

from .stack import Browser, Gunicorn, check, seed

pytestmark = pytest.mark.faults

SETUPS, BATCH, RATINGS = 6, 4, 1
PARTICIPANTS = 4


def test_participants_see_a_503_while_postgres_is_down_and_finish_after(postgres):
    study = seed(postgres.url, setups=SETUPS, batch=BATCH, ratings=RATINGS)
    web = Gunicorn(postgres.url, workers=2, threads=2)
    browsers = [
        Browser(web.base, study["slug"], f"{n:024x}", study["answers"]) for n in range(PARTICIPANTS)
    ]
    deadline = time.monotonic() + 45
    try:
        workers = web.workers()
        for browser in browsers:  # consent, qualification and two rated items each
            while len(browser.acked) < 2:
                assert browser.step() and time.monotonic() < deadline
        before = check(postgres.url)

        postgres.stop()
        for browser in browsers:  # a rating POST each, then a reload
            assert browser.step()
            assert browser.step()
        down = [r for b in browsers for r in b.unavailable]
        assert len(down) == 2 * PARTICIPANTS
        for response in down:
            assert response.status_code == 503
            assert response.headers["Retry-After"] == "30"
            assert "Please try again in a moment" in response.text
            assert "css/site.css" in response.text
            assert "Traceback" not in response.text and "psycopg" not in response.text
        assert all(len(b.acked) == 2 for b in browsers)  # nothing acknowledged while down

        postgres.start()
        during = check(postgres.url)
        assert during["ratings"] == before["ratings"]  # nothing half-written while down
        for browser in browsers:
            browser.finish(deadline)
        assert web.workers() == workers  # the same web processes, no restart
    finally:
        for browser in browsers:
            browser.close()
        web.stop()
    stored = check(postgres.url)
    per_participant = Counter(pid for pid, _, _ in stored["ratings"])
    assert all(per_participant[b.pid] == BATCH for b in browsers)
    assert max(Counter((p, s) for p, s, _ in stored["ratings"]).values()) == 1
    assert sorted(stored["finished"]) == sorted(b.pid for b in browsers)
    assert max(stored["per_sample"]) == RATINGS
