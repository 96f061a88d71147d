"""Attacks on a study's arrival, each against its own fresh study, while real participants arrive
spaced ``--spacing`` s apart: how many of them get a batch (issue 29, docs/security.md).

Loopback only and bounded: the server (gunicorn, DEBUG=0, the default study and hold settings,
``TRUSTED_PROXY_HOPS=1`` so that each simulated client has its own address in
X-Forwarded-For) serves a scratch database (``bench/scratch.py``: PostgreSQL next to
DATABASE_URL, else SQLite under var/), every attacker sends at most ``--max-requests``
requests, and the whole run stops after ``--timeout`` s whatever happens; the server runs in
its own process group, killed at the end.

The attacks (all at once, each on its own study of ``--places`` places; the attackers start
``--lead`` s before the first real arrival):

* ``made-up-pids``: one client consents with made-up PIDs and fresh cookies, as fast as the
  per-client rate lets it, to hold places without qualifying;
* ``unqualified-cap``: four clients do the same, to fill the study's cap on unqualified holds;
* ``double-count``: one client floods arrival GETs (``--flood-rate`` a second) and the
  qualification POSTs of a participant of its own, so that a per-study limit counting refused
  requests would refuse real arrivals and real qualifications;
* ``qualified-squat``: four clients consent and pass the qualification test (worst case: they
  know the answers, read here from the database) to hold places for the whole time limit;
* ``burn-pid``: four clients know the real participants' PIDs and consent with each one
  shortly before its owner arrives (and qualify, so the hold never lapses); the owner is
  refused (409), then the researcher resets the PID on the study page (as when the owner
  writes in) and the owner tries once more.

A real arrival is one browser from an address of its own: the arrival link, the consent, and
the qualification test answered correctly. It *gets in* when the consent answers with the
qualification page. Printed per attack: real arrivals tried / got in / qualified (for
burn-pid also after the reset), the attackers' requests by answer, and the places held by
attackers and real participants at the end.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/<db> python bench/abuse.py \\
        [--cache redis://127.0.0.1:6379/<n>] [--smoke] [--attacks a,b] [--json out.json]
        [--set HOLD_UNQUALIFIED_PER_CLIENT=0 ...]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(ROOT), str(HERE), str(HERE / "load")]

from abuse_client import CSRF, Client, Tally, made_up_pid, moved_to  # noqa: E402
from abuse_stack import (  # noqa: E402
    DEFAULT,
    RESEARCHER,
    SMOKE,
    Size,
    Study,
    free_port,
    held_places,
    setup_database,
    start_server,
)
from scratch import drop_scratch  # noqa: E402

ATTACKS = ("made-up-pids", "unqualified-cap", "double-count", "qualified-squat", "burn-pid")
RESET = re.compile(r'href="(/studies/\d+/participants/\d+/reset-pid/)"')


# --- the attacks -------------------------------------------------------------------------------


@dataclass
class Run:
    base: str
    size: Size
    prefix: str  # "10.<run>": this run's addresses
    stop_at: float
    max_requests: int
    rng: random.Random

    def address(self, group: int, n: int) -> str:
        return f"{self.prefix}.{group}.{n % 250 + 1}"

    def over(self, tally: Tally) -> bool:
        return time.monotonic() >= self.stop_at or tally.sent >= self.max_requests


async def squatter(run: Run, study: Study, tally: Tally, address: str, qualify: bool) -> None:
    """Consent again and again with made-up PIDs and fresh cookies, as fast as the answers
    allow (a refusal waits a second), qualifying each hold when ``qualify``."""
    while not run.over(tally):
        client = Client(run.base, address, tally)
        try:
            status, location = await client.arrive(study.slug, made_up_pid(run.rng))
            if _in(status, location) and qualify:
                await client.qualify(study)
            elif not _in(status, location):
                await asyncio.sleep(1)
        finally:
            await client.close()


async def made_up_pids(run: Run, study: Study, tally: Tally, groups: int = 1) -> None:
    await asyncio.gather(
        *(squatter(run, study, tally, run.address(100 + g, g), False) for g in range(groups))
    )


async def unqualified_cap(run: Run, study: Study, tally: Tally) -> None:
    await made_up_pids(run, study, tally, groups=4)


async def qualified_squat(run: Run, study: Study, tally: Tally) -> None:
    await asyncio.gather(
        *(squatter(run, study, tally, run.address(110 + g, g), True) for g in range(4))
    )


async def double_count(run: Run, study: Study, tally: Tally) -> None:
    """``flood_rate`` arrival GETs a second from one address, and as many qualification
    POSTs (an empty form) of a participant of its own."""
    address = run.address(120, 0)
    own = Client(run.base, address, tally)
    await own.arrive(study.slug, made_up_pid(run.rng))
    _, page, _ = await own.request("GET", f"/s/{study.slug}/qualification/")
    form = {"csrfmiddlewaretoken": m[1] if (m := CSRF.search(page)) else ""}
    flood = Client(run.base, address, tally)
    interval = 1 / run.size.flood_rate
    try:
        while not run.over(tally):
            started = time.monotonic()
            link = f"/s/{study.slug}/?PROLIFIC_PID={made_up_pid(run.rng)}&STUDY_ID=&SESSION_ID=x"
            await asyncio.gather(
                flood.request("GET", link),
                own.request("POST", f"/s/{study.slug}/qualification/", form),
            )
            await asyncio.sleep(max(0.0, 2 * interval - (time.monotonic() - started)))
    finally:
        await own.close()
        await flood.close()


ATTACKERS = {
    "made-up-pids": made_up_pids,
    "unqualified-cap": unqualified_cap,
    "double-count": double_count,
    "qualified-squat": qualified_squat,
    "burn-pid": None,  # in ``real_arrivals``: the burner goes just before each owner
}


async def researcher_reset(run: Run, study: Study, pid: str) -> bool:
    """Log in as the researcher and reset ``pid`` on the study page (search, Reset PID…)."""
    client = Client(run.base, run.address(200, 1))
    try:
        _, page, _ = await client.request("GET", "/accounts/login/")
        data = {"username": RESEARCHER[0], "password": RESEARCHER[1]}
        data["csrfmiddlewaretoken"] = CSRF.search(page)[1]  # type: ignore[index]
        await client.request("POST", "/accounts/login/", data)
        _, page, _ = await client.request("GET", f"/studies/{study.pk}/?pq={pid}")
        link = RESET.search(page)
        if not link:
            return False
        _, page, _ = await client.request("GET", link[1])
        form = {"reason": "bench: the owner wrote in", "csrfmiddlewaretoken": ""}
        form["csrfmiddlewaretoken"] = CSRF.search(page)[1]  # type: ignore[index]
        status, _, _ = await client.request("POST", link[1], form)
        return status == 302
    finally:
        await client.close()


def _in(status: int, location: str) -> bool:
    """The consent let the browser in: on to the qualification test."""
    return moved_to(status, location, "/qualification/")


async def _burn(run: Run, study: Study, pid: str, n: int) -> None:
    """A stranger consents with the owner's PID first, and qualifies (the hold never lapses)."""
    burner = Client(run.base, run.address(130 + n % 4, n))
    try:
        if _in(*await burner.arrive(study.slug, pid)):
            await burner.qualify(study)
    finally:
        await burner.close()


async def one_real(run: Run, study: Study, tally: Tally, n: int) -> None:
    pid = made_up_pid(run.rng)
    if study.attack == "burn-pid":
        await _burn(run, study, pid, n)
    address = run.address(50 + n // 250, n)
    client = Client(run.base, address)
    try:
        tally.real_tried += 1
        status, location = await client.arrive(study.slug, pid)
        got_in = _in(status, location)
        tally.real_in += got_in
        if status == 409 and study.attack == "burn-pid" and await researcher_reset(run, study, pid):
            await client.close()
            client = Client(run.base, address)  # the owner opens the link again
            got_in = _in(*await client.arrive(study.slug, pid))
            tally.real_in_after_reset += got_in
        if got_in:
            passed = await client.qualify(study)
            tally.real_qualified += passed
            if not passed:
                tally.refusals[f"qualification: {getattr(client, 'qualified_to', '')}"] += 1
        else:
            tally.refusals[status] += 1
    finally:
        await client.close()


async def real_arrivals(run: Run, study: Study, tally: Tally) -> None:
    await asyncio.sleep(run.size.lead)
    jobs = []
    for n in range(run.size.real):
        jobs.append(asyncio.create_task(one_real(run, study, tally, n)))
        await asyncio.sleep(run.size.spacing)
    await asyncio.gather(*jobs)


async def attack(run: Run, study: Study) -> Tally:
    """The attacker (if any) from the start, real arrivals after the head start; the attacker
    is stopped when the last real arrival is done."""
    tally = Tally()
    attacker = ATTACKERS[study.attack]
    real = asyncio.create_task(real_arrivals(run, study, tally))
    attacking = asyncio.create_task(attacker(run, study, tally)) if attacker else None
    await real
    if attacking is not None:
        attacking.cancel()
        await asyncio.gather(attacking, return_exceptions=True)
    return tally


async def run_all(run: Run, studies: list[Study]) -> list[Tally]:
    from generator import wait_up

    await wait_up(run.base + "/healthz", timeout=120)
    return list(await asyncio.gather(*(attack(run, study) for study in studies)))


def report(size: Size, studies: list[Study], tallies: list[Tally], held) -> list[dict]:
    rows = []
    print(
        f"{size.places} places a study, {size.real} real arrivals {size.spacing:g} s apart "
        f"after a {size.lead:g} s head start of the attackers"
    )
    header = f"{'attack':16} {'real in':>9} {'qualified':>9} {'after reset':>11} {'sent':>7}"
    print(header + "  attackers' answers / participants at the end")
    for study, tally in zip(studies, tallies):
        after = (
            f"{tally.real_in_after_reset}/{tally.real_tried}" if study.attack == "burn-pid" else ""
        )
        answers = " ".join(f"{k}:{v}" for k, v in sorted(tally.attacker.items()))
        print(
            f"{study.attack:16} {tally.real_in:>4}/{tally.real_tried:<4} "
            f"{tally.real_qualified:>9} {after:>11} {tally.sent:>7}  {answers} / "
            f"{held[study.attack]}"
        )
        rows.append(
            {
                "attack": study.attack,
                "real_tried": tally.real_tried,
                "real_in": tally.real_in,
                "real_qualified": tally.real_qualified,
                "real_in_after_reset": tally.real_in_after_reset,
                "real_refusals": dict(tally.refusals),
                "attacker_requests": tally.sent,
                "attacker_answers": {str(k): v for k, v in tally.attacker.items()},
                "participants_at_end": held[study.attack],
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="a small, fast run (CI)")
    parser.add_argument("--attacks", default=",".join(ATTACKS))
    parser.add_argument("--cache", default="locmem://", help="CACHE_URL of the server")
    parser.add_argument("--real", type=int, help="real arrivals per attack")
    parser.add_argument("--spacing", type=float, help="seconds between real arrivals")
    parser.add_argument("--max-requests", type=int, default=50_000, help="per attack")
    parser.add_argument("--timeout", type=float, default=900, help="seconds for the whole run")
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a server setting other than its default (e.g. HOLD_UNQUALIFIED_PER_CLIENT=0)",
    )
    args = parser.parse_args(argv)
    size = SMOKE if args.smoke else DEFAULT
    size.real = args.real or size.real
    size.spacing = args.spacing if args.spacing is not None else size.spacing
    attacks = [a for a in args.attacks.split(",") if a]
    unknown = set(attacks) - set(ATTACKS)
    if unknown:
        parser.error(f"unknown attack(s): {', '.join(sorted(unknown))}")
    if args.cache.startswith("locmem") and size.workers > 1:
        size.workers = 1  # a memory cache counts per process: one process counts exactly
    started = time.monotonic()
    run_id = random.randrange(1, 250)
    url, studies = setup_database(size, attacks, f"r{run_id}")
    port = free_port()
    log = ROOT / "var" / "bench_abuse_server.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    settings = dict(item.split("=", 1) for item in args.set)
    server = start_server(url, port, size, args.cache, log, settings)
    duration = size.lead + size.real * size.spacing + 60
    run = Run(
        base=f"http://127.0.0.1:{port}",
        size=size,
        prefix=f"10.{run_id}",
        stop_at=time.monotonic() + duration,
        max_requests=args.max_requests,
        rng=random.Random(run_id),
    )
    try:
        try:
            tallies = asyncio.run(
                asyncio.wait_for(run_all(run, studies), timeout=max(1.0, args.timeout - 5))
            )
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
        rows = report(size, studies, tallies, held_places(url, studies))
    finally:
        drop_scratch(url)  # the run's database is left behind by no run, as in the others
    print(f"({time.monotonic() - started:.0f} s; server log: {log})")
    if args.json:
        args.json.write_text(json.dumps({"size": size.__dict__, "attacks": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
