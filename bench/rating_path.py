"""Benchmark: Django queries and CPU per rated item on the participant path, in-process.

Creates a scratch database (PostgreSQL ``<name>_bench_rating`` when DATABASE_URL points to
PostgreSQL, else a scratch SQLite file under var/), opens a study of 40 setups x 6 samples
with 30 samples + 1 attention check per participant, and walks participants through the real
flow with Django's test client as a browser would (arrival link, consent, qualification,
31 items; every redirect followed). It prints, per rated item (the rating POST plus the page
that follows it):

* SQL queries (counted with ``CaptureQueriesContext`` for one participant), and
* CPU milliseconds of the process (``time.process_time``) over ``--participants`` more,
  with query logging off, and the machine's pace before and after them (``pace_ms`` of
  bench/load/cpu.py: this kind of machine runs the same code at two speeds, so two runs
  compare only at the same pace),

and the same for one arrival (link to the first item page). Run it with DEBUG=0 so the
production template loader and settings are used:

    DEBUG=0 SECRET_KEY=bench python bench/rating_path.py [--participants 20] [--keep]
    python bench/rating_path.py --smoke   # CI: one participant counted, one timed
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "bench" / "load"))

from cpu import pace_ms  # noqa: E402  (bench/load/ is on the path)
from scratch import drop_scratch, scratch_database_url, setup_django  # noqa: E402  (bench/ is on the path)

SETUPS = 40
PER_PARTICIPANT = 30
FORM = "application/x-www-form-urlencoded"


# Plain static names: nothing here runs collectstatic, and a manifest lookup is a dict read
# either way (bench/load measures the collected, hashed files under gunicorn).
DJANGO_ENV = {"STUDY_RATE_PER_IP": "0", "STATIC_MANIFEST": "0"}


def make_study():
    from tests.studies.helpers import open_study

    return open_study(SETUPS, per_participant=PER_PARTICIPANT, ratings=5, checks=1, slug="bench")


def post_form(client, url: str, data: dict, **kwargs):
    """POST ``data`` urlencoded, as a browser's form and participant.js send it (the test
    client's default, multipart, costs about 0.2 ms more a POST to build and parse)."""
    return client.post(url, urlencode(data), content_type=FORM, **kwargs)


# Where a rated item's CPU goes (``--breakdown``): each entry's CPU is inclusive (what it
# calls counts in it too) and counted only inside the timed rating requests; a recursive
# entry (URL resolution) counts its outermost call.
BREAKDOWN = (
    ("the request, middleware included", "django.core.handlers.base", "BaseHandler.get_response"),
    ("  URL resolution", "django.urls.resolvers", "URLResolver.resolve"),
    ("  the rating POST's view", "studies.rating_views", "_rate_post"),
    ("    the participant read and locked", "studies.locks", "participant_by_token"),
    ("    the answer's form validated", "studies.forms", "RatingForm.is_valid"),
    ("    the save (services.item_save)", "studies.services", "item_save"),
    ("      the batch's rows read", "studies.rating_save", "batch_rows"),
    ("      the claim, rating and next item statement", "studies.rating_save", "_save_rating"),
    ("    the next page built", "studies.rating_views", "_item_page"),
    ("      its template rendered", "studies.rating_views", "_render"),
    ("    COMMIT", "django.db.backends.base.base", "BaseDatabaseWrapper.commit"),
    ("SQL statements sent (Django's cursor)", "django.db.backends.utils", "CursorWrapper.execute"),
)


class Breakdown:
    """Process CPU inside each of ``BREAKDOWN``'s functions while ``on`` (the timed rating
    requests), by wrapping them in place (the bench's own process: nothing else sees it)."""

    def __init__(self) -> None:
        import importlib

        self.on = False
        self.cpu: dict[str, float] = dict.fromkeys((label for label, _, _ in BREAKDOWN), 0.0)
        self.calls: dict[str, int] = dict.fromkeys(self.cpu, 0)
        for label, module, name in BREAKDOWN:
            owner = importlib.import_module(module)
            *path, attr = name.split(".")
            for part in path:
                owner = getattr(owner, part)
            setattr(owner, attr, self._timed(label, getattr(owner, attr)))

    def _timed(self, label: str, func):
        import functools

        active = [False]

        @functools.wraps(func)
        def timed(*args, **kwargs):
            if not self.on or active[0]:
                return func(*args, **kwargs)
            active[0] = True
            t0 = time.process_time()
            try:
                return func(*args, **kwargs)
            finally:
                self.cpu[label] += time.process_time() - t0
                self.calls[label] += 1
                active[0] = False

        return timed

    def print(self, items: int) -> None:
        print(f"where a rated item's CPU goes (inclusive, ms per rated item; {items} items):")
        for label, cpu in self.cpu.items():
            per_item = self.calls[label] / max(1, items)
            print(f"  {label:<50} {cpu * 1000 / max(1, items):6.3f} ms  ({per_item:.2f} calls)")


ARRIVAL_PAGES = ("link", "consent", "qualification page", "qualification answer", "first item")


def arrive(client, study, pid: str, on_page=None):
    """The arrival link, consent and the qualification test, page by page as a browser
    follows them; returns the response of the first item page. ``on_page(name, call)``
    wraps each request (names: ``ARRIVAL_PAGES``): the consent's and the qualification's
    answers carry the next page (200), so its GET is only sent after a redirect."""
    on_page = on_page or (lambda name, call: call())
    url = f"/s/{study.slug}/?PROLIFIC_PID={pid}&STUDY_ID=st&SESSION_ID=se"
    page = on_page("link", lambda: client.get(url))
    token = re.search(r'name="token" value="([^"]+)"', page.content.decode()).group(1)
    data = {"pid": pid, "study_id": "st", "session_id": "se", "token": token}
    consent = f"/s/{study.slug}/consent/"
    answer = on_page("consent", lambda: post_form(client, consent, data))
    if answer.status_code != 200:
        on_page("qualification page", lambda: client.get(answer["Location"]))
    answers = {f"q{q.pk}": q.expected for q in study.check_questions.all()}
    graded = on_page(
        "qualification answer",
        lambda: post_form(client, f"/s/{study.slug}/qualification/", answers),
    )
    if graded.status_code == 200:
        return graded
    return on_page("first item", lambda: client.get(graded["Location"]))


def position(response) -> int | None:
    chain = getattr(response, "redirect_chain", None)  # none when not followed
    match = re.search(r"/rate/(\d+)/$", chain[-1][0] if chain else "")
    if match:
        return int(match.group(1))
    found = re.search(r'data-position="(\d+)"', response.content.decode())
    return int(found.group(1)) if found else None


def rate_all(client, study, first, checks, on_item, script: bool = False) -> int:
    """Answer every item, one POST per item with redirects followed; ``on_item`` wraps each.
    ``script``: as participant.js posts (``X-Rating-Page: 1``), so the answer is the next page."""
    headers = {"X-Rating-Page": "1"} if script else {}
    response, n = first, 0
    pos = position(response)
    while pos is not None:
        url = f"/s/{study.slug}/rate/{pos}/"
        data = {"score": checks.get(pos, 3), "comment": ""}
        response = on_item(
            lambda url=url, data=data: post_form(client, url, data, follow=True, headers=headers)
        )
        n += 1
        pos = position(response)
    assert b"DONE" in response.content or b"completion" in response.content.lower(), "not done"
    return n


def checks_of(pid: str) -> dict[int, int]:
    from studies.models import AttentionAnswer

    rows = AttentionAnswer.objects.filter(participant__prolific_pid=pid)
    return {a.position: a.question.expected for a in rows.select_related("question")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--participants", type=int, default=20)
    parser.add_argument("--keep", action="store_true", help="keep the scratch database")
    parser.add_argument(
        "--profile",
        nargs="?",
        const="items",
        choices=["items", "arrival"],
        help="print where the item requests (or the arrival pages) spend CPU (cProfile)",
    )
    parser.add_argument(
        "--client",
        choices=["form", "script"],
        default="form",
        help="form: POST, 303, GET per item; script: participant.js's one POST answered with "
        "the page",
    )
    parser.add_argument(
        "--queries", action="store_true", help="print the statements of each arrival page"
    )
    parser.add_argument(
        "--breakdown",
        action="store_true",
        help="print the CPU of the rating request's parts per rated item (no profiler)",
    )
    parser.add_argument("--smoke", action="store_true", help="CI size: 1 timed participant")
    args = parser.parse_args()
    if args.smoke:
        args.participants = 1
    script = args.client == "script"
    url = scratch_database_url("rating")
    setup_django(url, **DJANGO_ENV)
    from django.conf import settings
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    study = make_study()
    # queries, one participant
    client = Client()
    page_queries: dict[str, int] = {}

    def page_counted(name, call):
        with CaptureQueriesContext(connection) as q:
            response = call()
        page_queries[name] = len(q.captured_queries)  # read now: the log is a ring buffer
        if args.queries:
            print(f"--- {name}")
            for query in q.captured_queries:
                print("   ", query["sql"][:160])
        return response

    first = arrive(client, study, f"{1:024x}", page_counted)
    arrival_queries = sum(page_queries.values())
    per_item: list[int] = []

    def counted(call):
        with CaptureQueriesContext(connection) as q:
            response = call()
        per_item.append(len(q.captured_queries))
        return response

    rate_all(client, study, first, checks_of(f"{1:024x}"), counted, script)
    # CPU, more participants, no query logging
    cpu_item: list[float] = []
    cpu_arrival: list[float] = []
    cpu_pages: dict[str, list[float]] = {name: [] for name in ARRIVAL_PAGES}

    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile(time.process_time)  # CPU, not waiting on PostgreSQL

    def profiled(call, what: str):
        if profiler and args.profile == what:
            profiler.enable()
            try:
                return call()
            finally:
                profiler.disable()
        return call()

    def page_timed(name, call):
        t0 = time.process_time()
        response = profiled(call, "arrival")
        cpu_pages[name].append((time.process_time() - t0) * 1000)
        return response

    breakdown = Breakdown() if args.breakdown else None

    def timed(call):
        if breakdown:
            breakdown.on = True
        t0 = time.process_time()
        response = profiled(call, "items")
        cpu_item.append((time.process_time() - t0) * 1000)
        if breakdown:
            breakdown.on = False
        return response

    pace_before = pace_ms()  # the machine's speed: the same code's CPU follows it
    for n in range(2, 2 + args.participants):
        # a new browser, but the same handler: a new Client would load the middleware again
        # (WhiteNoise indexes every static file then, which a web process does once)
        client.cookies.clear()
        t0 = time.process_time()
        first = arrive(client, study, f"{n:024x}", page_timed)
        cpu_arrival.append((time.process_time() - t0) * 1000)
        rate_all(client, study, first, checks_of(f"{n:024x}"), timed, script)
    pace_after = pace_ms()
    vendor = connection.vendor
    print(
        f"database: {vendor}; DEBUG={settings.DEBUG}; client {args.client};"
        f" {len(cpu_item)} items timed"
    )
    print(
        f"arrival (link to first item): {arrival_queries} queries, "
        f"{statistics.median(cpu_arrival):.1f} ms CPU (median)"
    )
    for name in ARRIVAL_PAGES:
        if name not in page_queries:
            print(f"  {name}: in the answer to the POST before it")
            continue
        print(
            f"  {name}: {page_queries[name]} queries, "
            f"{statistics.median(cpu_pages[name]):.2f} ms CPU (median)"
        )
    print(
        f"per rated item (POST + next page): {statistics.mean(per_item):.1f} queries "
        f"(min {min(per_item)}, max {max(per_item)}), "
        f"{statistics.median(cpu_item):.2f} ms CPU median, {statistics.mean(cpu_item):.2f} mean"
    )
    print(
        f"machine pace (bench/load/cpu.py, lower is faster): {pace_before:.1f} ms before,"
        f" {pace_after:.1f} ms after; compare runs at the same pace"
    )
    if breakdown:
        breakdown.print(len(cpu_item))
    if profiler:
        import pstats

        (ROOT / "var").mkdir(exist_ok=True)
        profiler.dump_stats(ROOT / "var" / "rating_path.prof")  # for pstats / snakeviz
        for order in ("tottime", "cumulative"):
            pstats.Stats(profiler).strip_dirs().sort_stats(order).print_stats(30)
    if not args.keep:
        drop_scratch(url)


if __name__ == "__main__":
    main()
