"""The stack bench/abuse.py attacks: its sizes, a scratch database with one open study per
attack, the production-style server (gunicorn, DEBUG=0) and the participants at the end."""

from __future__ import annotations

import os
import socket
import subprocess
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESEARCHER = ("bench-researcher", "bench-abuse-password-1")


@dataclass
class Size:
    places: int  # setups x 6 samples x ratings / per_participant
    setups: int
    per_participant: int
    ratings: int
    real: int
    spacing: float
    lead: float
    flood_rate: float
    workers: int


DEFAULT = Size(
    places=100,
    setups=40,
    per_participant=12,
    ratings=5,
    real=12,
    spacing=15,
    lead=60,
    flood_rate=100,
    workers=3,
)
SMOKE = Size(
    places=48, setups=8, per_participant=2, ratings=2, real=4, spacing=1, lead=3, flood_rate=5,
    workers=1,
)  # fmt: skip


@dataclass
class Study:
    attack: str
    slug: str
    pk: int
    answers: dict[int, int]  # question pk -> an accepted answer (the attackers' worst case)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def setup_database(size: Size, attacks: list[str], run: str) -> tuple[str, list[Study]]:
    """A scratch database with one open study per attack and a researcher; Django is set up
    in this process for it (its connections are closed before the server starts)."""
    from scratch import scratch_database_url

    url = scratch_database_url("abuse")
    os.environ.update(DATABASE_URL=url, DEBUG="0", STATIC_MANIFEST="0")
    os.environ.setdefault("SECRET_KEY", "bench-abuse-" + "x" * 40)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ambisite.settings")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connections

    from studies.models import CheckQuestion
    from tests.studies.helpers import open_study, unrated_setups

    call_command("migrate", verbosity=0, interactive=False)
    get_user_model().objects.create_user(RESEARCHER[0], password=RESEARCHER[1], is_staff=True)
    studies = []
    samples = unrated_setups(size.setups, split="abuse")  # each study has its own places
    for attack in attacks:
        study = open_study(
            samples=samples,
            per_participant=size.per_participant,
            ratings=size.ratings,
            slug=f"{run}-{attack}",
        )
        answers = {q.pk: q.expected for q in CheckQuestion.objects.filter(study=study)}
        studies.append(Study(attack, study.slug, study.pk, answers))
    connections.close_all()
    return url, studies


def start_server(
    url: str, port: int, size: Size, cache: str, log: Path, settings: dict[str, str]
) -> subprocess.Popen:
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "DEBUG": "0",
        "STATIC_MANIFEST": "0",
        "TRUSTED_PROXY_HOPS": "1",  # each simulated client's address is in X-Forwarded-For
        "CACHE_URL": cache,
    }
    env.pop("DJANGO_SETTINGS_MODULE", None)
    for name in list(env):  # the study and hold settings stay at their defaults
        if name.startswith(("STUDY_RATE_", "HOLD_")):
            env.pop(name)
    env.update(settings)  # --set: a comparison with other settings
    config = ROOT / "ambisite" / "gunicorn.conf.py"
    return subprocess.Popen(
        [str(ROOT / ".venv" / "bin" / "gunicorn"), "-c", str(config), "ambisite.wsgi"]
        + ["-b", f"127.0.0.1:{port}", "-k", "gthread", "-w", str(size.workers)]
        + ["--threads", "4", "--log-level", "warning"],
        cwd=ROOT,
        env=env,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def held_places(url: str, studies: list[Study]) -> dict[str, dict[str, int]]:
    """Per study: its places, and how many participants hold or used one (status) at the end."""
    from django.db import connections

    from studies.models import Participant

    connections.close_all()
    out = {}
    for study in studies:
        rows = Participant.objects.filter(study_id=study.pk).values_list("status", flat=True)
        out[study.attack] = dict(Counter(rows))
    connections.close_all()
    return out
