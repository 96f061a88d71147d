"""Loopback load on the crowd path: gunicorn + PostgreSQL + an aiohttp generator (AmbiSite
only; the side-by-side comparison with Potato is ``make bench-load``'s job).

Creates a scratch PostgreSQL database (``<name>_bench_rating`` next to DATABASE_URL), opens a
study of ``--setups`` setups x 6 samples, 5 ratings per sample, 30 samples + 1 attention
check per participant (checks accept any answer, so no rater is excluded mid-run), starts
gunicorn (gthread, ``--workers`` x ``--threads``, DEBUG=0) on a free loopback port, and
runs ``--participants`` browsers at once, no think time: arrival link, consent,
qualification, every item by one POST whose 303 is followed to the next item, cookies and
CSRF as a browser. It prints sustained rated items/s (between the 10th and 90th percentile
of pair completion times), pair latency (the rating POST plus the page that follows)
p50/p95/p99, errors, the CPU of gunicorn, of the PostgreSQL backends and of the generator,
and checks in SQL: no sample over its quota (and, when the study filled, every sample
exactly at it), no setup twice for a participant, every
acknowledged answer stored once. Bounded: at most 1000 participants and ``--timeout`` s.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/<db> python bench/rating_load.py \\
        [--participants 200] [--setups 200] [--workers 2] [--threads 4]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def cpu_seconds(match) -> float:
    """utime + stime of the processes whose command line satisfies ``match`` (Linux /proc)."""
    hz, total = os.sysconf("SC_CLK_TCK"), 0.0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if match(cmd):
            total += (int(stat[11]) + int(stat[12])) / hz
    return total


def field(html: str, name: str) -> str | None:
    found = re.search(rf'name="{name}" value="([^"]+)"', html)
    return found.group(1) if found else None


async def participant(base, n, answers, pairs, finished, errors):
    import aiohttp

    pid = f"{n:024x}"
    jar = aiohttp.CookieJar(unsafe=True)  # cookies for a bare IP address
    async with aiohttp.ClientSession(cookie_jar=jar) as s:
        try:
            r = await s.get(f"{base}/s/load/?PROLIFIC_PID={pid}&STUDY_ID=st&SESSION_ID=se")
            html = await r.text()
            data = {"pid": pid, "study_id": "st", "session_id": "se"}
            data |= {k: field(html, k) for k in ("csrfmiddlewaretoken", "token")}
            r = await s.post(f"{base}/s/load/consent/", data=data)
            html = await r.text()
            if "/qualification/" not in str(r.url):
                full = "This study is full" in html
                errors.append(f"{'full' if full else 'arrival'} {n}: {r.status} {r.url}")
                return
            data = {"csrfmiddlewaretoken": field(html, "csrfmiddlewaretoken"), **answers}
            r = await s.post(str(r.url), data=data)
            html = await r.text()
            while "/rate/" in str(r.url):
                data = {"csrfmiddlewaretoken": field(html, "csrfmiddlewaretoken"), "score": "3"}
                t0 = time.perf_counter()
                r = await s.post(str(r.url), data=data)
                html = await r.text()
                t1 = time.perf_counter()
                if r.status != 200:
                    errors.append(f"item {n}: {r.status}")
                    return
                pairs.append((t1 - t0, t1))
            if "/done/" in str(r.url):
                finished.append(n)
            else:
                errors.append(f"end {n}: {r.url}")
        except Exception as exc:  # reported with the figures
            errors.append(f"{n}: {exc!r}")


async def wait_up(base: str, timeout: float = 60) -> None:
    import aiohttp

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            async with aiohttp.ClientSession() as s, s.get(f"{base}/s/load/guidelines/") as r:
                if r.status == 200:
                    return
        except aiohttp.ClientError:
            pass
        await asyncio.sleep(0.2)
    raise SystemExit("gunicorn did not answer")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--participants", type=int, default=200)
    parser.add_argument("--setups", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--timeout", type=int, default=300)
    args = parser.parse_args()
    if not 1 <= args.participants <= 1000:
        raise SystemExit("--participants must be 1-1000")
    if not os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")):
        raise SystemExit("DATABASE_URL must point to PostgreSQL")
    os.environ.update(DEBUG="0", SECRET_KEY=os.environ.get("SECRET_KEY") or "bench-load")
    os.environ["STUDY_RATE_PER_IP"] = "0"  # every browser comes from 127.0.0.1
    import rating_path

    url = rating_path.scratch_database_url()
    rating_path.setup_django(url)
    from django.core.management import call_command
    from django.db import connections

    from studies.models import CheckQuestion

    # DEBUG=0 serves the collected, hashed static files (WhiteNoise), as in production
    call_command("collectstatic", interactive=False, verbosity=0)
    from tests.studies.helpers import open_study

    study = open_study(args.setups, per_participant=30, ratings=5, checks=1, slug="load")
    study.max_unqualified = args.participants
    study.save()
    CheckQuestion.objects.update(tolerance=4)
    questions = study.check_questions.filter(in_qualification=True)
    answers = {f"q{q.pk}": str(q.expected) for q in questions}
    connections.close_all()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    bind = f"127.0.0.1:{port}"
    gunicorn = subprocess.Popen(
        [str(ROOT / ".venv/bin/gunicorn"), "ambisite.wsgi", "-b", bind, "-k", "gthread"]
        + ["-w", str(args.workers), "--threads", str(args.threads), "--log-level", "warning"],
        env=dict(os.environ, DATABASE_URL=url),
        cwd=ROOT,
    )
    pairs: list[tuple[float, float]] = []
    finished: list[int] = []
    errors: list[str] = []
    base = f"http://{bind}"
    try:
        asyncio.run(wait_up(base))
        gen0, t0 = os.times(), time.perf_counter()

        async def run_all():
            await asyncio.gather(
                *(
                    participant(base, n, answers, pairs, finished, errors)
                    for n in range(args.participants)
                )
            )

        asyncio.run(asyncio.wait_for(run_all(), args.timeout))
        wall, gen1 = time.perf_counter() - t0, os.times()
        web = cpu_seconds(lambda cmd: "gunicorn" in cmd and bind in cmd)
        pg = cpu_seconds(lambda cmd: cmd.startswith("postgres:") and "bench_rating" in cmd)
    finally:
        gunicorn.send_signal(signal.SIGTERM)
        gunicorn.wait(timeout=30)
    gen = gen1.user - gen0.user + gen1.system - gen0.system
    latencies = sorted(p[0] for p in pairs)
    ends = sorted(p[1] for p in pairs)
    lo, hi = ends[len(ends) // 10], ends[len(ends) * 9 // 10]
    rate = sum(1 for e in ends if lo <= e <= hi) / (hi - lo)

    def pct(p: float) -> float:
        return latencies[min(len(latencies) - 1, int(len(latencies) * p))] * 1000

    n = len(pairs)
    refused = [e for e in errors if e.startswith("full ")]
    errors = [e for e in errors if not e.startswith("full ")]
    print(f"participants {args.participants}, gunicorn gthread {args.workers}x{args.threads}")
    print(f"finished {len(finished)}, refused (study full) {len(refused)}, errors {len(errors)}")
    for error in errors[:5]:
        print("  ", error)
    print(
        f"rated items {n}: sustained {rate:.1f} items/s; pair p50 {pct(0.5):.0f} ms, "
        f"p95 {pct(0.95):.0f} ms, p99 {pct(0.99):.0f} ms"
    )
    print(
        f"CPU over {wall:.1f} s: web {web:.1f} s ({web / n * 1000:.2f} ms/item), "
        f"PostgreSQL {pg:.1f} s ({pg / n * 1000:.2f} ms/item), generator {gen:.1f} s"
    )
    import psycopg

    with psycopg.connect(url) as db:
        over = db.execute(
            "SELECT count(*) FROM (SELECT sample_id FROM studies_slot WHERE status <> 'free'"
            " GROUP BY sample_id HAVING count(*) > 5) x"
        ).fetchone()[0]
        twice = db.execute(
            "SELECT count(*) FROM (SELECT participant_id, setup_id FROM studies_slot WHERE"
            " participant_id IS NOT NULL GROUP BY 1, 2 HAVING count(*) > 1) x"
        ).fetchone()[0]
        short = db.execute(
            "SELECT count(*) FROM (SELECT sample_id FROM studies_slot WHERE status = 'done'"
            " GROUP BY sample_id HAVING count(*) <> 5) x"
        ).fetchone()[0]
        stored = db.execute(
            "SELECT (SELECT count(*) FROM annotations_rating)"
            " + (SELECT count(*) FROM studies_attentionanswer WHERE score IS NOT NULL)"
        ).fetchone()[0]
    exact = not refused or short == 0  # oversubscribed: every sample got exactly its quota
    ok = over == 0 and twice == 0 and stored == n and not errors and exact
    print(
        f"integrity {'OK' if ok else 'FAILED'}: samples over quota {over}, setup twice "
        f"{twice}, answers stored {stored} = acknowledged {n}"
        + (f", samples not exactly at quota {short}" if refused else "")
    )
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{url.rsplit("/", 1)[1]}" WITH (FORCE)')
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
