"""The load generator of ``make bench-load`` (bench/load/generator.py): how it fills a form,
and one small walk through a real study on a live server (a few seconds, bounded)."""

from __future__ import annotations

import asyncio
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "load"))

import generator  # noqa: E402
import tool_ambisite  # noqa: E402

pytestmark = pytest.mark.bench

FORM = """
<form method="post" action="/next/" id="f">
  <input type="hidden" name="csrfmiddlewaretoken" value="t&amp;k">
  <input type="radio" name="score" value="1"><input type="radio" name="score" value="2">
  <input type="radio" name="score" value="3"><input type="radio" name="score" value="4">
  <input type="radio" name="score" value="5">
  <input type="radio" name="q7" value="a"><input type="radio" name="q7" value="b" checked>
  <input type="checkbox" name="nonsensical">
  <input type="checkbox" name="agree" value="yes" checked>
  <textarea name="comment">as &lt;is&gt;</textarea>
  <select name="lang"><option value="en">en</option><option value="de" selected>de</option></select>
  <button type="button" name="help">?</button>
  <button type="submit" name="go" value="next">Next</button>
  <button type="submit" name="back" value="1">Back</button>
</form>
<form method="dialog"><button>Close</button></form>
"""


def test_it_fills_a_form_as_a_browser_submits_it():
    form = generator.forms(FORM)[0]
    assert form.method == "post" and form.attrs["action"] == "/next/"
    assert generator.fill(form) == [
        ("csrfmiddlewaretoken", "t&k"),
        ("score", "3"),  # the middle of an unanswered group
        ("q7", "b"),  # an answered group keeps its answer
        ("agree", "yes"),  # unticked boxes are not sent
        ("comment", "as <is>"),
        ("lang", "de"),
        ("go", "next"),  # only the button pressed
    ]


def test_a_profile_can_choose_the_answer():
    form = generator.forms(FORM)[0]
    assert ("score", "5") in generator.fill(form, choose=lambda options: options[-1])


def test_sustained_rate_uses_the_middle_80_percent_of_completions():
    stats = generator.Stats(pairs=[(0.1, t) for t in range(100)] + [(0.5, 1000), (0.5, 1001)])
    out = generator.summary(stats)
    assert out["rated_items"] == 102
    # completions 10 to 91 count, not the two late ones
    assert out["items_per_s"] == pytest.approx(82 / 81, abs=0.01)
    assert out["pair_ms"]["p50"] == 100.0 and out["pair_ms"]["p99"] == 500.0
    # where the window lies (stats.started is 0 here): first, 10th, 90th percentile, last
    assert out["window_s"] == [0, 10, 91, 1001]


def test_it_says_when_participants_reached_their_first_item():
    stats = generator.Stats(started=100.0, arrived=[103.0, 101.0, 102.0, 104.5])
    out = generator.summary(stats)
    assert out["arrivals_s"] == [3.0, 4.5]  # the median and the last
    assert out["items_per_s"] is None and out["window_s"] is None  # no pairs yet


def test_a_burst_spreads_the_arrivals_evenly_over_its_seconds():
    assert generator.start_delays(3, 0) == [0.0, 0.0, 0.0]  # all at once, as before
    assert generator.start_delays(5, 10) == [0.0, 2.5, 5.0, 7.5, 10.0]
    assert generator.start_delays(1, 10) == [0.0]


def test_link_to_first_item_percentiles_are_in_ms():
    out = generator.link_percentiles([0.1 * n for n in range(1, 21)])  # 0.1 .. 2.0 s
    assert out == {"p50": 1100.0, "p95": 2000.0, "max": 2000.0}
    assert generator.link_percentiles([]) == {"p50": None, "p95": None, "max": None}


def test_a_burst_study_repeats_the_split_past_its_end_as_new_setups():
    import burst

    data = {str(i): {"precontext": f"p{i // 6}", "sample_id": str(i)} for i in range(12)}
    assert list(burst.study_samples(data, 1)) == [str(i) for i in range(6)]
    out = burst.study_samples(data, 5)  # 2 setups in the file: 3 more as copies
    assert len(out) == 30 and len({(s["precontext"], s["sample_id"]) for s in out.values()}) == 30
    assert out["c1-7"]["precontext"] == "p1 [copy 1]" and out["c2-0"]["sample_id"] == "c2-0"


def test_a_burst_says_how_many_cores_were_busy_while_the_arrivals_came_in():
    import burst

    assert burst.busy({"wall_s": 20.0, "machine_s": 39.2, "cores": 2}) == "1.96 of 2"
    assert burst.busy({"wall_s": 4.0, "machine_s": 1.0, "cores": 8}) == "0.25 of 8"
    assert burst.busy({}) is None and burst.busy({"wall_s": 0, "machine_s": 1.0}) is None


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("client", ["script", "form"])
def test_it_walks_every_participant_through_a_study_on_a_live_server(live_server, client):
    """Both browsers finish; the scripted one (participant.js: the next item comes back in the
    rating's own answer) sends one request per item, the form one two (POST, 303, GET)."""
    from django.db import connection

    from annotations.models import Rating
    from studies.models import AttentionAnswer, CheckQuestion
    from tests.studies.helpers import open_study

    open_study(4, per_participant=4, ratings=2, checks=1, slug=tool_ambisite.SLUG)
    CheckQuestion.objects.update(tolerance=4)  # the middle answer passes every check
    # SQLite refuses concurrent writers ("database is locked"): one browser there
    n = 3 if connection.vendor == "postgresql" else 1
    # In its own thread: a session-wide Playwright (the browser tests) keeps an event loop
    # running in this one, and asyncio.run() refuses to start inside it.
    with ThreadPoolExecutor(max_workers=1) as pool:
        profile = tool_ambisite.AmbiSiteProfile(client)
        walk = generator.run(live_server.url, profile, n, timeout=20)
        stats = pool.submit(asyncio.run, walk).result()
    assert stats.errors == [] and stats.http_errors == {} and stats.asset_errors == {}
    assert (stats.accepted, stats.finished, stats.refused) == (n, n, 0)
    assert len(stats.pairs) == n * 5  # 4 samples + 1 attention check each
    answered = AttentionAnswer.objects.exclude(score=None).count()
    assert Rating.objects.count() + answered == n * 5
    # per participant: 5 pairs; the page after the last is the code page (form: its 303 is
    # followed; script: fetched with the redirect followed, then loaded as a page again)
    per_item = {"script": 1, "form": 2}[client]
    assert stats.requests / n - 5 * per_item in range(5, 15)  # arrival, assets, the end
    assert len(stats.link_to_first) == n and all(0 < t < 20 for t in stats.link_to_first)


@pytest.mark.django_db(transaction=True)
def test_a_burst_lets_the_participants_in_over_its_seconds(live_server):
    """Spread over 1 s, the last arrival starts about 1 s after the first, and the callback
    fires once every participant is past its arrival."""
    from studies.models import CheckQuestion
    from tests.studies.helpers import open_study

    open_study(4, per_participant=4, ratings=2, checks=1, slug=tool_ambisite.SLUG)
    CheckQuestion.objects.update(tolerance=4)
    marks: list[int] = []
    with ThreadPoolExecutor(max_workers=1) as pool:
        profile = tool_ambisite.AmbiSiteProfile("script")
        walk = generator.run(live_server.url, profile, 2, 20, 1.0, lambda: marks.append(1))
        stats = pool.submit(asyncio.run, walk).result()
    assert stats.errors == [] and (stats.accepted, stats.finished) == (2, 2)
    assert marks == [1] and stats.past_arrival == 2
    assert stats.arrivals_done - stats.started >= 1.0  # the second left 1 s after the first


@pytest.mark.django_db(transaction=True)
def test_think_time_is_spent_on_each_item_before_its_answer(live_server):
    """With --think 0.3 a participant's 5 items (4 samples, 1 check) take at least 1.5 s from
    the first item to the end, the pause is not in the rating pair's latency, and no item's
    answer is lost."""
    import time

    from studies.models import CheckQuestion
    from tests.studies.helpers import open_study

    open_study(4, per_participant=4, ratings=1, checks=1, slug=tool_ambisite.SLUG)
    CheckQuestion.objects.update(tolerance=4)
    with ThreadPoolExecutor(max_workers=1) as pool:
        profile = tool_ambisite.AmbiSiteProfile("script")
        walk = generator.run(live_server.url, profile, 1, 20, think=0.3)
        stats = pool.submit(asyncio.run, walk).result()
        ended = time.perf_counter()
    assert stats.errors == [] and (stats.accepted, stats.finished) == (1, 1)
    assert len(stats.pairs) == 5
    assert ended - stats.arrived[0] >= 5 * 0.3
    gaps = [b[1] - a[1] for a, b in zip(stats.pairs, stats.pairs[1:])]
    assert all(gap >= 0.3 for gap in gaps)  # each answer waited its think time


def test_every_participant_has_an_address_of_its_own():
    addresses = [generator.address(n) for n in range(70_000)]
    assert len(set(addresses)) == len(addresses) and addresses[258] == "10.0.1.2"


@pytest.mark.django_db(transaction=True)
def test_behind_a_trusted_proxy_each_browser_counts_as_its_own_client(live_server, settings):
    """As the bench serves AmbiSite (TRUSTED_PROXY_HOPS=1): each participant's holds and
    limits are kept under the address its browser sends, not under 127.0.0.1 for all."""
    from django.db import connection

    from studies.models import CheckQuestion, Participant
    from tests.studies.helpers import open_study

    settings.TRUSTED_PROXY_HOPS = 1
    open_study(4, per_participant=4, ratings=2, checks=1, slug=tool_ambisite.SLUG)
    CheckQuestion.objects.update(tolerance=4)
    n = 3 if connection.vendor == "postgresql" else 1
    with ThreadPoolExecutor(max_workers=1) as pool:
        walk = generator.run(live_server.url, tool_ambisite.AmbiSiteProfile("script"), n, 20)
        stats = pool.submit(asyncio.run, walk).result()
    assert stats.errors == [] and stats.finished == n
    clients = sorted(Participant.objects.values_list("client", flat=True))
    assert clients == sorted(generator.address(i) for i in range(n))
