"""A loopback load generator that walks a crowd study as browsers do, for any annotation tool.

Each participant is one aiohttp session with its own cookie jar. From the arrival link it
reads every page it gets, fetches the page's scripts, stylesheets and preload/prefetch hints
once (a browser's cache), and submits the page's POST form the way a browser would: hidden
fields and the CSRF token as they are, every radio group answered (the middle option unless
the tool's profile chooses), checkboxes left unticked, textareas as they are; every redirect is
followed. There is no think
time. What differs between tools lives in a small :class:`Profile`: the arrival link, how to
recognise a rating page, the end of the study and a refusal, and (for tools that save with
JavaScript instead of a form) how one rating is sent.

A *pair* is one rating: from the request that sends it to the end of the page that follows
(for a form, the POST and the redirect it answers; for Potato, its save, its navigation and
the page load). Only the standard library and aiohttp: the generator never imports a tool.
"""

from __future__ import annotations

import asyncio
import functools
import html as htmllib
import re
import time
from dataclasses import dataclass, field
from urllib.parse import urlencode, urljoin, urlsplit

FORM = re.compile(r"<form\b([^>]*)>(.*?)</form>", re.I | re.S)
CONTROL = re.compile(
    r"<(input|button)\b([^>]*)>|<textarea\b([^>]*)>(.*?)</textarea>|<select\b([^>]*)>(.*?)</select>",
    re.I | re.S,
)
OPTION = re.compile(r"<option\b([^>]*)>", re.I)
ATTR = re.compile(r"""([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?""")
ASSET = re.compile(r"<(script|link)\b([^>]*)>", re.I)
FORM_TYPE = "application/x-www-form-urlencoded"
MAX_STEPS = 200  # pages per participant: a study of 31 items needs about 35


@functools.lru_cache(maxsize=4096)
def attrs(raw: str) -> dict[str, str]:
    """The attributes of one tag (names lower-cased, entities decoded; bare ones are ""),
    remembered per text of the tag (a study's pages repeat most of theirs, as the radio
    buttons of every rating page): the generator's parsing is CPU the server's cores lose
    in these loopback runs, so it is kept small. The dict is shared: never change it."""
    found = {}
    for m in ATTR.finditer(raw):
        value = m.group(2) if m.group(2) is not None else m.group(3) or m.group(4) or ""
        found.setdefault(m.group(1).lower(), htmllib.unescape(value))
    return found


@dataclass
class Form:
    """One ``<form>``: its attributes and its controls in document order."""

    attrs: dict[str, str]
    controls: list[tuple[str, dict[str, str], str]]  # (tag, attributes, text of a textarea)

    @property
    def method(self) -> str:
        return self.attrs.get("method", "get").lower()

    def radio_groups(self) -> dict[str, list[dict[str, str]]]:
        groups: dict[str, list[dict[str, str]]] = {}
        for tag, a, _ in self.controls:
            if tag == "input" and a.get("type", "").lower() == "radio" and "name" in a:
                groups.setdefault(a["name"], []).append(a)
        return groups


def forms(page: str) -> list[Form]:
    found = []
    for m in FORM.finditer(page):
        controls = []
        for c in CONTROL.finditer(m.group(2)):
            if c.group(1):
                controls.append((c.group(1).lower(), attrs(c.group(2)), ""))
            elif c.group(3) is not None:
                controls.append(("textarea", attrs(c.group(3)), htmllib.unescape(c.group(4))))
            else:
                options = [attrs(o) for o in OPTION.findall(c.group(6))]
                chosen = next(
                    (o for o in options if "selected" in o), options[0] if options else {}
                )
                controls.append(("select", attrs(c.group(5)), chosen.get("value", "")))
        found.append(Form(attrs(m.group(1)), controls))
    return found


def middle(options: list[dict[str, str]]) -> dict[str, str]:
    """The middle option of a radio group (3 on a 1-5 scale)."""
    return options[(len(options) - 1) // 2]


def fill(form: Form, choose=middle) -> list[tuple[str, str]]:
    """The fields a browser would send when the form's first submit button is pressed, with
    every unanswered radio group answered by ``choose``."""
    data: list[tuple[str, str]] = []
    groups = form.radio_groups()
    answered = {
        name: next((a for a in opts if "checked" in a), None) or choose(opts)
        for name, opts in groups.items()
    }
    submitted = False
    for tag, a, text in form.controls:
        name, kind = a.get("name"), a.get("type", "text" if tag == "input" else "submit").lower()
        if tag == "textarea" and name:
            data.append((name, text))
        elif tag == "select" and name:
            data.append((name, text))
        elif kind in ("submit", "image") and tag in ("input", "button"):
            if not submitted and name:
                data.append((name, a.get("value", "")))
            submitted = True
        elif not name or "disabled" in a or kind in ("button", "reset", "file"):
            continue
        elif kind == "radio":
            if answered.get(name) is a:
                data.append((name, a.get("value", "on")))
        elif kind == "checkbox":
            if "checked" in a:
                data.append((name, a.get("value", "on")))
        else:
            data.append((name, a.get("value", "")))
    return data


@dataclass
class Page:
    status: int
    url: str
    text: str
    headers: dict[str, str] = field(default_factory=dict)  # of the last response
    redirected: bool = False


class Browser:
    """One participant's browser: a cookie jar, a cache of fetched assets, the counters, and
    the fields a page's script keeps from one page to the next (``kept``)."""

    def __init__(self, session, stats: Stats):
        self.session, self.stats, self.cache = session, stats, set()
        self.kept: dict[str, str] = {}

    async def request(self, method: str, url: str, **kw) -> Page:
        import aiohttp

        try:
            return await self._request(method, url, **kw)
        except (aiohttp.ServerDisconnectedError, aiohttp.ClientOSError):
            if method != "GET":
                raise
            # as a browser does when a kept-alive connection was closed under it
            self.stats.retries += 1
            return await self._request(method, url, **kw)

    async def _request(self, method: str, url: str, **kw) -> Page:
        self.stats.requests += 1
        if isinstance(kw.get("data"), list):  # a form's fields: urlencoded, as a browser sends
            # them (aiohttp's FormData gives the same bytes at several times the CPU)
            kw["data"] = urlencode(kw["data"]).encode()
            kw["headers"] = {**kw.get("headers", {}), "Content-Type": FORM_TYPE}
        async with self.session.request(method, url, **kw) as r:
            text = await r.text()
            self.stats.requests += len(r.history)
            for step in (*r.history, r):
                if step.status >= 400:
                    self.stats.http_errors[step.status] = (
                        self.stats.http_errors.get(step.status, 0) + 1
                    )
            # a page sent in answer to a POST names its own address (AmbiSite's X-Page-Url),
            # where the page's script moves the address bar: the page is taken to be there
            url = urljoin(str(r.url), r.headers.get("X-Page-Url", ""))
            return Page(r.status, url, text, dict(r.headers), bool(r.history))

    async def assets(self, page: Page) -> None:
        """Scripts, stylesheets and preload/prefetch hints of the page's own origin, each once
        per browser (with no think time, a hint is fetched with the page's own assets)."""
        origin = urlsplit(page.url)[:2]
        wanted = []
        for m in ASSET.finditer(page.text):
            a = attrs(m.group(2))
            ref = a.get("src") if m.group(1).lower() == "script" else None
            rel = a.get("rel", "").lower().split()
            if m.group(1).lower() == "link" and {"stylesheet", "preload", "prefetch"} & set(rel):
                ref = a.get("href")  # hints too: a browser fetches them while the page is read
            url = urljoin(page.url, ref) if ref else None
            if url and urlsplit(url)[:2] == origin and url not in self.cache:
                self.cache.add(url)
                wanted.append(url)
        for result in await asyncio.gather(
            *(self.fetch(u) for u in wanted), return_exceptions=True
        ):
            if isinstance(result, Exception):
                self.stats.note(f"asset: {result!r}")

    async def fetch(self, url: str) -> None:
        self.stats.requests += 1
        async with self.session.get(url) as r:
            await r.read()
            if r.status >= 400:
                self.stats.asset_errors[r.status] = self.stats.asset_errors.get(r.status, 0) + 1

    async def submit(self, page: Page, form: Form, choose=middle) -> Page:
        action = form.attrs.get("action") or page.url
        url = urljoin(page.url, action)
        if form.method == "post":
            return await self.request("POST", url, data=fill(form, choose))
        return await self.request("GET", url, params=fill(form, choose))


class Profile:
    """What the generator needs to know about one tool. The defaults fit a tool whose pages
    are plain HTML forms."""

    name = "tool"

    def arrival_url(self, base: str, n: int) -> str:
        raise NotImplementedError

    def outcome(self, page: Page) -> str | None:
        """ "done" (the completion page), "refused" (the study is full) or None."""
        raise NotImplementedError

    def is_rating(self, page: Page) -> bool:
        raise NotImplementedError

    def form(self, page: Page) -> Form | None:
        """The form a participant submits on this page: the first POST form."""
        return next((f for f in forms(page.text) if f.method == "post"), None)

    def choose(self, options: list[dict[str, str]]) -> dict[str, str]:
        return middle(options)

    async def rate(self, browser: Browser, page: Page) -> Page:
        """Send one rating and return the page that follows it."""
        form = self.form(page)
        if form is None:
            raise RuntimeError(f"no form on the rating page {page.url}")
        return await browser.submit(page, form, self.choose)


@dataclass
class Stats:
    pairs: list[tuple[float, float]] = field(default_factory=list)  # (latency s, end time)
    accepted: int = 0
    refused: int = 0
    refusals: dict[int, int] = field(default_factory=dict)  # refused arrivals by HTTP status
    arrival_errors: int = 0
    finished: int = 0
    stopped: int = 0  # accepted but not finished (an error after the first item page)
    requests: int = 0
    retries: int = 0  # GETs sent again after the server closed a kept-alive connection
    http_errors: dict[int, int] = field(default_factory=dict)  # pages, forms and saves
    asset_errors: dict[int, int] = field(default_factory=dict)  # scripts and stylesheets
    errors: list[str] = field(default_factory=list)
    started: float = 0.0  # time.perf_counter() when the participants were let go
    arrived: list[float] = field(default_factory=list)  # when each reached its first item
    # seconds from each accepted participant's arrival link to its first item page (assets
    # loaded), and how many participants are past their arrival (accepted, refused, failed)
    link_to_first: list[float] = field(default_factory=list)
    past_arrival: int = 0
    # seconds each step before the first item took (step 0: the link and its page's assets,
    # then each form submitted with the page it led to), per step
    arrival_steps: dict[int, list[float]] = field(default_factory=dict)
    arrivals_done: float = 0.0  # time.perf_counter() when the last one was past it

    def note(self, message: str) -> None:
        if len(self.errors) < 50:
            self.errors.append(message)


async def participant(
    session, base: str, n: int, profile: Profile, stats: Stats, think: float = 0.0
) -> None:
    """One participant's walk: the arrival link, every form up to the first item, then each
    item rated (after ``think`` s on its page: a person reading; 0, the stress figure) until
    the completion page."""
    browser = Browser(session, stats)
    accepted = False
    linked = step = time.perf_counter()
    k = 0  # the step before the first item
    try:
        page = await browser.request("GET", profile.arrival_url(base, n))
        for _ in range(MAX_STEPS):
            await browser.assets(page)
            if not accepted:
                now = time.perf_counter()
                stats.arrival_steps.setdefault(k, []).append(now - step)
                step, k = now, k + 1
            end = profile.outcome(page)
            if end == "done":
                stats.finished += 1
                return
            if end == "refused" and not accepted:
                stats.refused += 1
                stats.past_arrival += 1
                stats.refusals[page.status] = stats.refusals.get(page.status, 0) + 1
                if page.status >= 400:  # a "try again later" page: an answer, not an error
                    stats.http_errors[page.status] -= 1
                    if not stats.http_errors[page.status]:
                        del stats.http_errors[page.status]
                return
            if page.status >= 400 or end is not None:
                raise RuntimeError(f"{page.status} at {page.url}")
            if profile.is_rating(page):
                if not accepted:
                    accepted = True
                    stats.accepted += 1
                    stats.past_arrival += 1
                    stats.arrived.append(time.perf_counter())
                    stats.link_to_first.append(stats.arrived[-1] - linked)
                if think:
                    await asyncio.sleep(think)
                t0 = time.perf_counter()
                page = await profile.rate(browser, page)
                t1 = time.perf_counter()
                if page.status >= 400:
                    raise RuntimeError(f"{page.status} after a rating at {page.url}")
                stats.pairs.append((t1 - t0, t1))
                continue
            form = profile.form(page)
            if form is None:
                raise RuntimeError(f"no form at {page.url}")
            page = await browser.submit(page, form, profile.choose)
        raise RuntimeError(f"more than {MAX_STEPS} pages")
    except Exception as exc:  # counted and reported with the figures
        if accepted:
            stats.stopped += 1
        else:
            stats.arrival_errors += 1
            stats.past_arrival += 1
        stats.note(f"{profile.name} participant {n}: {exc!r}"[:300])


def address(n: int) -> str:
    """Participant ``n``'s own address (10.x.y.z), sent in X-Forwarded-For: every browser
    runs on 127.0.0.1, where Prolific's participants each have their own (a tool behind a
    trusted proxy reads it there; one that does not ignores the header)."""
    return f"10.{(n >> 16) & 255}.{(n >> 8) & 255}.{n & 255}"


def start_delays(participants: int, within: float) -> list[float]:
    """When each participant opens the arrival link, in seconds from the start: all at once
    (``within`` 0), or evenly spread over ``within`` seconds (a release burst)."""
    if within <= 0 or participants <= 1:
        return [0.0] * participants
    return [n * within / (participants - 1) for n in range(participants)]


async def run(
    base: str,
    profile: Profile,
    participants: int,
    timeout: float,
    within: float = 0.0,
    on_arrivals=None,
    think: float = 0.0,
) -> Stats:
    """All participants, each in its own browser, arriving together or spread evenly over
    ``within`` s (``start_delays``); stops after ``timeout`` s. ``on_arrivals()`` is called
    once, as soon as every participant is past its arrival (the burst's CPU split). ``think``:
    seconds each participant spends on an item's page before answering it."""
    import aiohttp

    stats = Stats(started=time.perf_counter())
    delays = start_delays(participants, within)
    client_timeout = aiohttp.ClientTimeout(total=min(120, timeout))

    async def one(n: int) -> None:
        # unsafe: keep cookies for a bare IP address; 6 connections per host as a browser;
        # an idle connection is dropped after 1.5 s, before gunicorn's default keep-alive of
        # 2 s closes it under a request
        jar = aiohttp.CookieJar(unsafe=True)
        connector = aiohttp.TCPConnector(limit_per_host=6, keepalive_timeout=1.5)
        await asyncio.sleep(delays[n] - (time.perf_counter() - stats.started))
        async with aiohttp.ClientSession(
            cookie_jar=jar,
            connector=connector,
            timeout=client_timeout,
            headers={"X-Forwarded-For": address(n)},
        ) as session:
            await participant(session, base, n, profile, stats, think)

    async def watch() -> None:
        while stats.past_arrival < participants:
            await asyncio.sleep(0.02)
        stats.arrivals_done = time.perf_counter()
        if on_arrivals is not None:
            on_arrivals()

    watcher = asyncio.ensure_future(watch())
    tasks = [asyncio.ensure_future(one(n)) for n in range(participants)]
    done, pending = await asyncio.wait(tasks, timeout=timeout)
    await asyncio.sleep(0.05)  # the watcher sees the last arrival counted
    watcher.cancel()
    for task in pending:
        task.cancel()
    if pending:
        await asyncio.gather(*pending, return_exceptions=True)
        stats.note(f"{len(pending)} participants still running after {timeout:.0f} s: stopped")
    return stats


async def wait_up(url: str, timeout: float = 120) -> None:
    """Until ``url`` answers at all (any status) or ``timeout`` s passed."""
    import aiohttp

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            async with aiohttp.ClientSession() as s, s.get(url, allow_redirects=False) as r:
                await r.read()
                return
        except (aiohttp.ClientError, OSError):
            await asyncio.sleep(0.25)
    raise RuntimeError(f"{url} did not answer in {timeout:.0f} s")


def summary(stats: Stats) -> dict:
    """Sustained rated items/s between the 10th and 90th percentile of pair completion times,
    and pair latency percentiles in ms."""
    latencies = sorted(p[0] for p in stats.pairs)
    ends = sorted(p[1] for p in stats.pairs)
    out = {
        "rated_items": len(latencies),
        "items_per_s": None,
        "window_s": None,
        "arrivals_s": None,
        "pair_ms": {"p50": None, "p95": None, "p99": None},
    }
    if len(ends) >= 10:
        lo, hi = ends[len(ends) // 10], ends[len(ends) * 9 // 10]
        inside = sum(1 for e in ends if lo <= e <= hi)
        out["items_per_s"] = round(inside / (hi - lo), 2) if hi > lo else None
        # where that window lies: seconds from the start to the first, the 10th and 90th
        # percentile and the last completed pair
        out["window_s"] = [round(t - stats.started, 1) for t in (ends[0], lo, hi, ends[-1])]
    if stats.arrived:  # seconds from the start to the median and the last first item page
        arrived = sorted(stats.arrived)
        out["arrivals_s"] = [
            round(arrived[len(arrived) // 2] - stats.started, 1),
            round(arrived[-1] - stats.started, 1),
        ]
    if latencies:

        def pct(p: float) -> float:
            return round(latencies[min(len(latencies) - 1, int(len(latencies) * p))] * 1000, 1)

        out["pair_ms"] = {"p50": pct(0.5), "p95": pct(0.95), "p99": pct(0.99)}
    out["link_to_first_ms"] = link_percentiles(stats.link_to_first)
    out["arrival_steps_p50_ms"] = [  # the median of each step before the first item
        round(sorted(v)[len(v) // 2] * 1000) for _, v in sorted(stats.arrival_steps.items())
    ]
    return out


def link_percentiles(seconds: list[float]) -> dict[str, float | None]:
    """p50, p95 and max of the link-to-first-item times, in ms (None without any)."""
    if not seconds:
        return {"p50": None, "p95": None, "max": None}
    ordered = sorted(seconds)

    def pct(p: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(len(ordered) * p))] * 1000, 1)

    return {"p50": pct(0.5), "p95": pct(0.95), "max": round(ordered[-1] * 1000, 1)}
