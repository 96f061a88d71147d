"""The live server's request counter that the browser fixture uses (tests/live_requests.py)."""

from __future__ import annotations

import threading
import time

import pytest

from tests.live_requests import LiveRequests

CHROMIUM = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 HeadlessChrome/140.0 Safari/537.36"


def hello(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [b"hello"]


def call(requests: LiveRequests, path: str = "/", agent: str = CHROMIUM):
    environ = {"REQUEST_METHOD": "POST", "PATH_INFO": path, "HTTP_USER_AGENT": agent}
    return requests(environ, lambda status, headers: None)


def test_a_request_while_a_test_holds_the_browser_is_answered_and_not_a_straggler():
    requests = LiveRequests(hello)
    requests.hold("tests/x.py::test_one")
    body = call(requests)
    assert list(body) == [b"hello"]
    body.close()
    requests.release(quiet=0)
    requests.check()


def test_a_chromium_request_after_its_test_fails_the_check_once():
    requests = LiveRequests(hello)
    requests.hold("tests/x.py::test_one")
    requests.release(quiet=0)
    call(requests, "/s/demo/hold/").close()
    call(requests, "/metrics", agent="python-httpx/0.28").close()  # the bench's clients
    with pytest.raises(AssertionError, match=r"POST /s/demo/hold/ \(after tests/x.py::test_one\)"):
        requests.check()
    requests.check()  # reported once


def test_release_waits_until_the_server_has_closed_the_last_response():
    requests = LiveRequests(hello)
    requests.hold("tests/x.py::test_one")
    body = call(requests, "/s/demo/hold/")  # a beacon being answered
    closer = threading.Timer(0.3, body.close)
    closer.start()
    start = time.monotonic()
    requests.release(quiet=0)
    assert time.monotonic() - start >= 0.25
    assert requests.owner == "" and requests.last_owner == "tests/x.py::test_one"
    closer.join()


def test_release_waits_for_a_quiet_moment_after_the_last_request_started():
    requests = LiveRequests(hello)
    requests.hold("tests/x.py::test_one")
    call(requests).close()
    start = time.monotonic()
    requests.release(quiet=0.2)
    assert time.monotonic() - start >= 0.15


def test_answered_since_waits_for_a_request_for_the_path_that_started_after_the_mark():
    requests = LiveRequests(hello)
    requests.hold("tests/x.py::test_one")
    call(requests, "/s/demo/hold/").close()  # a heartbeat before the page was left
    mark = time.monotonic()
    assert not requests.answered_since("/s/demo/hold/", mark, timeout=0.05)
    beacon = threading.Timer(0.2, lambda: call(requests, "/s/demo/hold/").close())
    beacon.start()
    call(requests, "/s/other/hold/").close()  # another path does not count
    start = time.monotonic()
    assert requests.answered_since("/s/demo/hold/", mark, timeout=5)
    assert 0.1 <= time.monotonic() - start < 5
    beacon.join()


def test_a_beacon_still_being_answered_is_not_answered_yet():
    requests = LiveRequests(hello)
    mark = time.monotonic()
    body = call(requests, "/s/demo/hold/")
    assert not requests.answered_since("/s/demo/hold/", mark, timeout=0.05)
    body.close()
    assert requests.answered_since("/s/demo/hold/", mark, timeout=0.05)
