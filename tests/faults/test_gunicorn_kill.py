"""A gunicorn worker SIGKILLed while participants submit (real gunicorn, real PostgreSQL, real
HTTP with cookies and CSRF): every acknowledged rating is stored once, the quotas are exact and
the participants whose requests died reload and finish.

Found here: when the killed request was a consent POST in a study filled to its last batch, the
retry can be told "This study is full" for a moment (the dead transaction's slot claims stay
locked until PostgreSQL notices the closed connection); the browser reloads and then gets its
batch. A participant would rather see "try again" (StudyBusy) there; see the faults report.
Other arrivals can meanwhile be told "Please try again in a few minutes" (StudyBusy, 429):
every free place is held for a moment. The page asks them to open the link again, and the
browsers do (``Browser.busy``).
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections import Counter

import pytest

from .stack import Browser, Gunicorn, check, seed

pytestmark = pytest.mark.faults

SETUPS, BATCH, RATINGS = 6, 4, 2  # 36 samples x 2 ratings = 18 batches of 4
PARTICIPANTS = SETUPS * 6 * RATINGS // BATCH


def test_a_killed_worker_loses_no_acknowledged_rating(postgres):
    study = seed(postgres.url, setups=SETUPS, batch=BATCH, ratings=RATINGS)
    web = Gunicorn(postgres.url, workers=2, threads=2)
    browsers = [
        Browser(web.base, study["slug"], f"{n:024x}", study["answers"]) for n in range(PARTICIPANTS)
    ]
    deadline = time.monotonic() + 45
    errors: list[str] = []

    def run(browser: Browser) -> None:
        try:
            browser.finish(deadline)
        except Exception as exc:  # asserted on in the main thread
            errors.append(f"{browser.pid}: {exc!r}")

    threads = [threading.Thread(target=run, args=(b,)) for b in browsers]
    try:
        before = web.workers()
        for thread in threads:
            thread.start()
        while sum(len(b.acked) for b in browsers) < PARTICIPANTS * BATCH // 3:
            assert time.monotonic() < deadline, "participants made no progress"
            time.sleep(0.01)
        victim = before[0]
        os.kill(victim, signal.SIGKILL)
        for thread in threads:
            thread.join(timeout=max(1, deadline - time.monotonic() + 5))
        after = web.workers()
    finally:
        for browser in browsers:
            browser.close()
        web.stop()
    assert errors == []
    assert all(b.done for b in browsers)
    assert victim not in after and len(after) == 2  # the master replaced the killed worker
    stored = check(postgres.url)
    per_participant = Counter(pid for pid, _, _ in stored["ratings"])
    for browser in browsers:
        # one batch of samples plus the attention check, each answered and stored exactly once
        assert len(set(browser.acked)) <= BATCH + 1
        assert per_participant[browser.pid] == BATCH
    pairs = Counter((pid, sample) for pid, sample, _ in stored["ratings"])
    assert max(pairs.values()) == 1  # none duplicated
    assert stored["per_sample"] == [RATINGS] * (SETUPS * 6)  # every quota exact
    assert sorted(stored["finished"]) == sorted(b.pid for b in browsers)
    assert stored["slots_done"] == stored["slots"]
