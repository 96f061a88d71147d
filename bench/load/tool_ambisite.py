"""AmbiSite under the load generator: a scratch PostgreSQL study, gunicorn, SQL checks.

One template database (``<name>_bench_load_tpl`` next to DATABASE_URL) is migrated once and
given the study: the first ``setups`` x 6 samples of data/ambistory/train.json (labels
redacted, as for a new split), 5 ratings per sample, 30 samples + 1 attention check per
participant (checks accept any answer, so no rater is excluded mid-run). Every run copies it
(``CREATE DATABASE ... TEMPLATE``) so each starts from an empty study, and serves it with
gunicorn (``DEBUG=0``, the repo's gunicorn config and its worker class when there is one,
else gthread) on loopback.
"""

from __future__ import annotations

import os
import runpy
import subprocess
from pathlib import Path
from urllib.parse import urljoin

from generator import Browser, Page, Profile, fill

ROOT = Path(__file__).resolve().parent.parent.parent
SLUG = "load"
RATINGS = 5
PER_PARTICIPANT = 30
GUNICORN_CONFIG = ROOT / "ambisite" / "gunicorn.conf.py"


def database_urls(url: str) -> tuple[str, str]:
    """(template, run) database URLs next to ``url``."""
    base, name = url.rsplit("/", 1)
    name = name.split("?", 1)[0]
    return f"{base}/{name}_bench_load_tpl", f"{base}/{name}_bench_load"


def admin(url: str):
    import psycopg

    return psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True)


def build_template(url: str, samples: dict[str, dict], setups: int) -> None:
    """Migrate a fresh template database and open the study in it (Django in this process;
    its connections are closed before returning, as a template must have none)."""
    template = database_urls(url)[0]
    name = template.rsplit("/", 1)[1]
    with admin(url) as db:
        db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        db.execute(f'CREATE DATABASE "{name}"')
    os.environ["DATABASE_URL"] = template
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ambisite.settings")
    os.environ.setdefault("SECRET_KEY", "bench-load-not-secret")
    os.environ["DEBUG"] = "0"  # production settings, so that collectstatic writes the manifest
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connections

    from annotations.importers import REDACTED, ambistory_import, parse_ambistory
    from annotations.models import Sample, Setup
    from studies.models import CheckQuestion
    from tests.studies.helpers import open_study

    call_command("migrate", verbosity=0, interactive=False)
    # DEBUG=0 serves the collected, hashed static files (WhiteNoise), as in production
    call_command("collectstatic", interactive=False, verbosity=0)
    redacted = {sid: {**s, "choices": REDACTED, "average": REDACTED} for sid, s in samples.items()}
    ambistory_import(samples=parse_ambistory(redacted, allow_redacted=True), split="bench")
    if Setup.objects.count() != setups:
        raise SystemExit(
            f"{len(samples)} samples made {Setup.objects.count()} setups, not {setups}"
        )
    open_study(
        setups,
        per_participant=PER_PARTICIPANT,
        ratings=RATINGS,
        checks=1,
        slug=SLUG,
        samples=list(Sample.objects.filter(split__name="bench").order_by("position")),
    )
    CheckQuestion.objects.update(tolerance=4)
    connections.close_all()


def fresh_run_database(url: str, participants: int) -> str:
    """A copy of the template for one run, its study allowing every participant to be
    unqualified at once (they all arrive together)."""
    import psycopg

    template, run = database_urls(url)
    with admin(url) as db:
        db.execute(f'DROP DATABASE IF EXISTS "{run.rsplit("/", 1)[1]}" WITH (FORCE)')
        db.execute(
            f'CREATE DATABASE "{run.rsplit("/", 1)[1]}" TEMPLATE "{template.rsplit("/", 1)[1]}"'
        )
    with psycopg.connect(run, autocommit=True) as db:
        db.execute("UPDATE studies_study SET max_unqualified = %s", (max(100, participants),))
    return run


def drop_databases(url: str) -> None:
    with admin(url) as db:
        for name in database_urls(url):
            db.execute(f'DROP DATABASE IF EXISTS "{name.rsplit("/", 1)[1]}" WITH (FORCE)')


def worker_class() -> str:
    """The worker class ``start`` serves with: the config's, as it resolves in this
    environment (``GUNICORN_WORKER_CLASS``), else gunicorn's gthread."""
    if not GUNICORN_CONFIG.exists():
        return "gthread"
    return str(runpy.run_path(str(GUNICORN_CONFIG))["worker_class"]).rsplit(".", 1)[-1]


def start(run_url: str, bind: str, workers: int, threads: int, log: Path) -> subprocess.Popen:
    """gunicorn in its own process group (the caller kills the group). Command-line options
    override the repo's config file, so the bench can try worker and thread counts."""
    config = ["-c", str(GUNICORN_CONFIG)] if GUNICORN_CONFIG.exists() else []
    env = {
        **os.environ,
        "DATABASE_URL": run_url,
        "DEBUG": "0",
        "SECRET_KEY": os.environ.get("SECRET_KEY") or "bench-load-not-secret",
        # each browser's own address comes in X-Forwarded-For (generator.address), as behind
        # the deployment's proxy: the per-address limits, holds and the consent's per-client
        # lock apply per participant, at their defaults, as they do to Prolific's
        # participants (before, every browser was 127.0.0.1: those were turned off, and every
        # consent still queued on that one client's lock)
        "TRUSTED_PROXY_HOPS": "1",
        "STUDY_RATE_PER_STUDY": "0",  # the study-wide arrival rate: a burst is the point
    }
    env.pop("DJANGO_SETTINGS_MODULE", None)
    return subprocess.Popen(
        [str(ROOT / ".venv" / "bin" / "gunicorn"), *config, "ambisite.wsgi", "-b", bind]
        # the config's worker class (a gthread worker); gunicorn's own without a config
        + ([] if config else ["-k", "gthread"])
        + ["-w", str(workers), "--threads", str(threads)]
        # info: one "Autorestarting worker" line a worker recycled by max_requests (counted
        # by run.py); the config leaves the access log off
        + ["--log-level", "info"],
        cwd=ROOT,
        env=env,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def integrity(run_url: str, acknowledged: int, oversubscribed: bool, capacity: int) -> dict:
    """The SQL checks: quotas, one sample per setup and participant, acknowledged answers
    stored once."""
    import psycopg

    one = lambda db, sql: db.execute(sql).fetchone()[0]  # noqa: E731
    with psycopg.connect(run_url) as db:
        checks = {
            "samples_over_quota": one(
                db,
                "SELECT count(*) FROM (SELECT sample_id FROM studies_slot WHERE status <> 'free'"
                f" GROUP BY sample_id HAVING count(*) > {RATINGS}) x",
            ),
            "samples_rated_over_quota": one(
                db,
                "SELECT count(*) FROM (SELECT sample_id FROM annotations_rating"
                f" GROUP BY sample_id HAVING count(*) > {RATINGS}) x",
            ),
            "setup_twice": one(
                db,
                "SELECT count(*) FROM (SELECT participant_id, setup_id FROM studies_slot WHERE"
                " participant_id IS NOT NULL GROUP BY 1, 2 HAVING count(*) > 1) x",
            ),
            "duplicated_ratings": one(
                db,
                "SELECT count(*) FROM (SELECT rater_id, sample_id FROM annotations_rating"
                " GROUP BY 1, 2 HAVING count(*) > 1) x",
            ),
            "stored": one(
                db,
                "SELECT (SELECT count(*) FROM annotations_rating)"
                " + (SELECT count(*) FROM studies_attentionanswer WHERE score IS NOT NULL)",
            ),
            "finished_participants": one(
                db, "SELECT count(*) FROM studies_participant WHERE finished_at IS NOT NULL"
            ),
        }
        checks["samples_not_exactly_at_quota"] = one(
            db,
            "SELECT count(*) FROM (SELECT sample_id FROM studies_slot GROUP BY sample_id"
            f" HAVING count(*) FILTER (WHERE status = 'done') <> {RATINGS}) x",
        )
    checks["acknowledged"] = acknowledged
    full = oversubscribed or checks["finished_participants"] >= capacity
    checks["exact_checked"] = full
    checks["ok"] = (
        checks["samples_over_quota"] == 0
        and checks["samples_rated_over_quota"] == 0
        and checks["setup_twice"] == 0
        and checks["duplicated_ratings"] == 0
        and checks["stored"] == acknowledged
        and (not full or checks["samples_not_exactly_at_quota"] == 0)
    )
    return checks


CSRF_FIELD = "csrfmiddlewaretoken"


class AmbiSiteProfile(Profile):
    """``client="script"``: what a browser running the rating page's script (static/js/
    participant.js) sends on Next: the form's fields as a fetch() POST with ``X-Rating-Page: 1``;
    the next item's page comes back in that answer (address in ``X-Page-Url``) and is swapped
    in, keeping the CSRF token of the page before (the swapped-in form has none); any other
    answer is followed as the script does (a redirect, e.g. to the code page after the last
    item, is loaded again as a page). ``client="form"``: a browser without
    scripts, whose form POST is answered 303 and followed with a GET."""

    name = "ambisite"

    def __init__(self, client: str = "script"):
        if client not in ("script", "form"):
            raise ValueError(f"client must be script or form, not {client!r}")
        self.client = client

    async def rate(self, browser: Browser, page: Page) -> Page:
        form = self.form(page)
        if self.client == "form" or form is None or 'id="rate-form"' not in page.text:
            return await super().rate(browser, page)
        url = urljoin(page.url, form.attrs.get("action") or page.url)
        data = fill(form, self.choose)
        # a swapped-in item comes without the CSRF token: the script keeps the page's one
        token = next((value for name, value in data if name == CSRF_FIELD), None)
        if token is None:
            data.insert(0, (CSRF_FIELD, browser.kept.get(CSRF_FIELD, "")))
        else:
            browser.kept[CSRF_FIELD] = token
        answer = await browser.request("POST", url, data=data, headers={"X-Rating-Page": "1"})
        swapped = answer.headers.get("X-Page-Url")
        if swapped:
            return Page(answer.status, urljoin(page.url, swapped), answer.text)
        if answer.redirected:
            return await browser.request("GET", answer.url)
        return answer

    def arrival_url(self, base: str, n: int) -> str:
        return f"{base}/s/{SLUG}/?PROLIFIC_PID={n:024x}&STUDY_ID=bench&SESSION_ID=se{n}"

    def outcome(self, page: Page) -> str | None:
        if f"/s/{SLUG}/done/" in page.url:
            return "done"
        # no place: full, or (429) every place is held by someone not qualified yet
        if "This study is full" in page.text or "Please try again in a few minutes" in page.text:
            return "refused"
        return None

    def is_rating(self, page: Page) -> bool:
        return "/rate/" in page.url and 'id="rate-form"' in page.text
