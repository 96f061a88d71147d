"""The live server's requests, counted for the browser fixture (tests/conftest.py).

A browser page can outlive its test: a page left open polls (static/js/study_detail.js, every
10 s) or beats (static/js/participant.js, every 60 s) during later tests, and a participant
page that closes sends a beacon (``pagehide``) that the server answers after
``BrowserContext.close()`` has returned. Such a request reaches the live server once the test's
database is flushed and pytest-django blocks access to it again: the server thread prints
"Database access not allowed". The browser fixture leaves each of the test's pages for
about:blank, waits here until the server has answered the closing beacon of a page that holds a
batch (``answered_since``: Chromium may send it well after the navigation has returned, more so
on a loaded machine), closes the contexts, waits until the server has answered their last
requests, and asserts that Chromium sent none while no test held it.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

# Playwright's Chromium says so in its User-Agent; the bench's scripted clients do not.
CHROMIUM_AGENT = "Chrome/"


class LiveRequests:
    """A WSGI wrapper around the live server's application: counts the requests in flight and
    keeps, as stragglers, those that Chromium sends while no test holds the browser."""

    def __init__(self, app: Callable[..., Iterable[bytes]]) -> None:
        self.app = app
        self.owner = ""  # the node id of the test holding the browser, "" between tests
        self.last_owner = ""
        self.stragglers: list[str] = []
        self._lock = threading.Lock()
        self._in_flight = 0
        self._last_start = 0.0
        self._answered: dict[str, float] = {}  # path -> start of the latest request answered

    def __call__(self, environ: dict[str, Any], start_response: Callable) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        with self._lock:
            self._in_flight += 1
            self._last_start = start = time.monotonic()
            if not self.owner and CHROMIUM_AGENT in environ.get("HTTP_USER_AGENT", ""):
                self.stragglers.append(
                    f"{environ['REQUEST_METHOD']} {path} (after {self.last_owner or 'no test'})"
                )
        done = functools.partial(self._done, path, start)
        try:
            result = self.app(environ, start_response)
        except BaseException:
            done()
            raise
        return _Body(result, done)  # in flight until the server has sent and closed it

    def _done(self, path: str, start: float) -> None:
        with self._lock:
            self._in_flight -= 1
            self._answered[path] = max(start, self._answered.get(path, start))

    def answered_since(self, path: str, since: float, timeout: float = 5.0) -> bool:
        """Wait until the server has answered a request for ``path`` that started at or after
        ``since`` (a monotonic time); False if none came within ``timeout`` seconds (the
        straggler check still catches one that comes later)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if self._answered.get(path, -1.0) >= since:
                    return True
            time.sleep(0.01)
        return False

    def hold(self, nodeid: str) -> None:
        self.owner = nodeid

    def release(self, quiet: float = 0.2, timeout: float = 10.0) -> None:
        """Wait until no request is in flight and none has started for ``quiet`` seconds (a
        closing page's beacon may start just after its context is closed), then hand the
        browser back: a Chromium request from now on is a straggler."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                idle = self._in_flight == 0 and time.monotonic() - self._last_start >= quiet
                if idle:
                    self.last_owner, self.owner = self.owner, ""
                    return
            if time.monotonic() > deadline:
                raise AssertionError(f"the live server still answers {self.owner}'s requests")
            time.sleep(0.02)

    def check(self) -> None:
        """Fail if Chromium sent a request while no test held it (once: the list is emptied)."""
        found, self.stragglers = self.stragglers, []
        assert not found, "requests reached the live server after their test ended: " + "; ".join(
            found
        )


class _Body:
    """The application's response, reporting when the server closes it (WSGI calls close())."""

    def __init__(self, result: Iterable[bytes], done: Callable[[], None]) -> None:
        self.result = result
        self.done = done

    def __iter__(self):
        return iter(self.result)

    def close(self) -> None:
        try:
            close = getattr(self.result, "close", None)
            if close is not None:
                close()
        finally:
            self.done()
