"""The tests' pinned rate-limit window (tests/conftest.py, ``_one_rate_window``)."""

from __future__ import annotations

import time
import uuid

from ambisite import ratelimit


def test_a_test_counts_its_rate_limits_in_the_window_it_started_in():
    first = ratelimit.time.time()
    time.sleep(0.02)
    assert ratelimit.time.time() == first  # the window cannot end during the test
    assert ratelimit.time.monotonic() > 0  # the rest of the time module is the real one
    key = f"tests:pinned:{uuid.uuid4().hex}"  # a shared cache (Redis) is not emptied
    assert [ratelimit.allow(key, 2) for _ in range(4)] == [True, True, False, False]
    assert ratelimit.over(key, 2)
