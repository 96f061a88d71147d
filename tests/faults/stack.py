"""Real services for the fault-injection tests, each private, on a free loopback port, and torn
down even when the test fails: a PostgreSQL cluster (initdb + pg_ctl, as the ``postgres`` user
when run as root), gunicorn against it, and a participant "browser" (httpx, cookie jar, CSRF)
that reads every form from the HTML (action, hidden inputs, radio names).

Data is seeded and checked through Django in a subprocess pointed at the private database, so
the test process never touches the shared PostgreSQL at 5432.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qsl, urljoin, urlsplit

import httpx

ROOT = Path(__file__).resolve().parents[2]
PYTHON = str(ROOT / ".venv" / "bin" / "python")
GUNICORN = str(ROOT / ".venv" / "bin" / "gunicorn")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_port(port: int, timeout: float = 30) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port} after {timeout} s")


def _pg_bin(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    if not found:
        raise RuntimeError(f"PostgreSQL's {name} is not installed (/usr/lib/postgresql/*/bin)")
    return found[-1]


class PrivatePostgres:
    """A throw-away PostgreSQL cluster in a temp dir, trust auth, loopback, fsync off."""

    def __init__(self) -> None:
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="ambisite-faults-pg-"))
        self.data = self.dir / "data"
        self.as_root = os.geteuid() == 0
        if self.as_root:  # PostgreSQL refuses to run as root
            shutil.chown(self.dir, "postgres", "postgres")
        self._run(_pg_bin("initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres")
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/ambisite_faults"

    def _run(self, *cmd: str, timeout: float = 60) -> None:
        prefix = ["runuser", "-u", "postgres", "--"] if self.as_root else []
        subprocess.run(
            prefix + list(cmd), check=True, timeout=timeout, capture_output=True, cwd=self.dir
        )

    def start(self) -> None:
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(
            _pg_bin("pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.dir / "log"),
            "-o",
            options,
            "-w",
            "-t",
            "30",
            "start",
        )

    def stop(self, mode: str = "fast") -> None:
        self._run(_pg_bin("pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "-t", "30", "stop")

    def create_db(self) -> None:
        self._run(_pg_bin("createdb"), "-h", "127.0.0.1", "-p", str(self.port), "ambisite_faults")

    def destroy(self) -> None:
        try:
            self.stop("immediate")
        except (subprocess.SubprocessError, OSError):
            pass
        shutil.rmtree(self.dir, ignore_errors=True)


def django_env(database_url: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "PYTEST"))}
    env.update(
        DATABASE_URL=database_url,
        DEBUG="0",
        SECRET_KEY="faults-test-key",
        STUDY_RATE_PER_IP="0",  # every browser comes from 127.0.0.1
        HOLD_UNQUALIFIED_PER_CLIENT="0",  # so do their holds
        HOLD_TOTAL_PER_CLIENT="0",
        CACHE_URL="locmem://",
        STATIC_MANIFEST="0",  # nothing collected: templates link plain static names
        AMBISITE_VAR_DIR=str(Path(tempfile.gettempdir()) / "ambisite-faults-var"),
        PYTHONPATH=str(ROOT),
        DJANGO_SETTINGS_MODULE="ambisite.settings",
    )
    env.update(extra)
    return env


def django_script(database_url: str, code: str, timeout: float = 120, **env: str) -> dict:
    """Run ``code`` (Django set up, ``result`` a dict) in a subprocess; return ``result``."""
    program = (
        "import django, json\ndjango.setup()\nresult = {}\n"
        + code
        + "\nprint('RESULT ' + json.dumps(result))\n"
    )
    done = subprocess.run(
        [PYTHON, "-c", program],
        env=django_env(database_url, **env),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if done.returncode != 0:
        raise RuntimeError(f"django script failed:\n{done.stdout}\n{done.stderr}")
    line = [x for x in done.stdout.splitlines() if x.startswith("RESULT ")][-1]
    return json.loads(line[len("RESULT ") :])


SEED = """
from django.core.management import call_command
call_command("migrate", verbosity=0, interactive=False)
from studies.models import CheckQuestion
from tests.studies.helpers import open_study
study = open_study({setups}, per_participant={batch}, ratings={ratings}, checks=1, slug="fault")
study.max_unqualified = 1000
study.save()
CheckQuestion.objects.update(tolerance=4)  # checks accept any answer: nobody is excluded
questions = study.check_questions.filter(in_qualification=True)
result = {{"slug": study.slug, "answers": {{f"q{{q.pk}}": str(q.expected) for q in questions}}}}
"""

CHECK = """
from collections import Counter
from annotations.models import Rating
from studies.models import Participant, Slot, Study
study = Study.objects.get(slug="fault")
ratings = Rating.objects.filter(rater__participant__study=study)
rows = list(ratings.values_list("rater__participant__prolific_pid", "sample_id", "position"))
result = {
    "ratings": [list(r) for r in rows],
    "per_sample": sorted(Counter(s for _, s, _ in rows).values()),
    "finished": sorted(
        Participant.objects.filter(study=study, status="finished")
        .values_list("prolific_pid", flat=True)
    ),
    "participants": Participant.objects.filter(study=study).count(),
    "slots_done": Slot.objects.filter(study=study, status="done").count(),
    "slots": Slot.objects.filter(study=study).count(),
}
"""


def seed(database_url: str, *, setups: int, batch: int, ratings: int) -> dict:
    return django_script(database_url, SEED.format(setups=setups, batch=batch, ratings=ratings))


def check(database_url: str) -> dict:
    return django_script(database_url, CHECK)


class Gunicorn:
    """gunicorn (gthread) on a free loopback port; ``stop`` kills the whole process group."""

    def __init__(self, database_url: str, *, workers: int = 2, threads: int = 2) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = tempfile.NamedTemporaryFile(prefix="ambisite-faults-gunicorn-", suffix=".log")
        self.proc = subprocess.Popen(
            [GUNICORN, "ambisite.wsgi", "-b", f"127.0.0.1:{self.port}", "-k", "gthread"]
            + ["-w", str(workers), "--threads", str(threads), "--timeout", "30"]
            + ["--graceful-timeout", "5", "--log-level", "warning"],
            env=django_env(database_url),
            cwd=ROOT,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        wait_port(self.port)
        end = time.monotonic() + 30
        while len(self.workers()) < workers and time.monotonic() < end:
            time.sleep(0.1)

    def workers(self) -> list[int]:
        """The worker processes' ids (children of the master)."""
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[1]) == self.proc.pid and stat[0] != "Z":
                found.append(int(pid))
        return sorted(found)

    def output(self) -> str:
        return Path(self.log.name).read_text(errors="replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        self.log.close()


class _Forms(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and (a.get("method") or "get").lower() == "post":
            self.forms.append({"action": a.get("action"), "hidden": {}, "radios": {}})
        elif tag == "input" and self.forms and a.get("name"):
            kind = (a.get("type") or "text").lower()
            if kind == "hidden":
                self.forms[-1]["hidden"][a["name"]] = a.get("value") or ""
            elif kind == "radio":
                self.forms[-1]["radios"].setdefault(a["name"], []).append(a.get("value"))


def post_form(html: str) -> dict | None:
    parser = _Forms()
    parser.feed(html)
    return parser.forms[0] if parser.forms else None


class Browser:
    """One participant: follows the pages, fills every form, records acknowledged ratings.

    ``acked`` holds the rate-page positions whose POST got its answer (a 303/200); a request
    that dies (connection reset by a killed worker, a 503) is retried by reloading the page.
    """

    def __init__(self, base: str, slug: str, pid: str, answers: dict[str, str]) -> None:
        self.base, self.slug, self.pid, self.answers = base, slug, pid, answers
        self.client = httpx.Client(base_url=base, follow_redirects=True, timeout=20)
        self.acked: list[str] = []
        self.failures: list[str] = []
        self.unavailable: list[httpx.Response] = []
        self.full: list[httpx.Response] = []  # "study full" pages after a killed request
        self.busy: list[httpx.Response] = []  # "try again in a few minutes" (429) at consent
        self.url = f"/s/{slug}/?PROLIFIC_PID={pid}&STUDY_ID=st1&SESSION_ID=se1"
        self.page: httpx.Response | None = None
        self.done = False

    def _data(self, form: dict) -> dict[str, str]:
        data = dict(form["hidden"])
        for name, values in form["radios"].items():
            data[name] = self.answers.get(name) or ("3" if "3" in values else values[0])
        query = dict(parse_qsl(urlsplit(str(self.page.url)).query))
        for key, field in (
            ("PROLIFIC_PID", "pid"),
            ("STUDY_ID", "study_id"),
            ("SESSION_ID", "session_id"),
        ):
            if key in query:
                data.setdefault(field, query[key])
        return data

    def step(self) -> bool:
        """One page: load it if needed, submit its form. False once the done page is reached."""
        try:
            if self.page is None:
                self.page = self.client.get(self.url)
                if self.page.status_code == 503:
                    self.unavailable.append(self.page)
                    self.page = None
                    return True
            if "/done/" in str(self.page.url):
                self.done = True
                return False
            form = post_form(self.page.text)
            if form is None:
                raise AssertionError(f"{self.pid}: no form on {self.page.url}: {self.page.text}")
            action = urljoin(str(self.page.url), form["action"] or str(self.page.url))
            was_rating = "/rate/" in urlsplit(action).path
            response = self.client.post(action, data=self._data(form))
        except httpx.TransportError as exc:  # the worker died under this request
            self.failures.append(f"{self.url}: {exc!r}")
            self.page = None
            return True
        if response.status_code == 503:
            self.unavailable.append(response)
            self.page = None  # reload, then send again
            return True
        if (
            response.status_code == 429
            and "Please try again in a few minutes" in response.text
            and len(self.busy) < 20
        ):
            # StudyBusy at consent: every free place is held for a moment (by arrivals that
            # have not qualified yet, or by a killed consent's slot claims that PostgreSQL
            # has not released yet). The page asks the participant to open the link again,
            # and nothing was stored, so the browser does that.
            self.busy.append(response)
            time.sleep(0.25)
            self.page = None
            return True
        if response.status_code != 200:
            raise AssertionError(f"{self.pid}: {response.status_code} on {action}")
        if self.failures and "This study is full" in response.text and len(self.full) < 20:
            # Known race (see the report in tests/faults/test_gunicorn_kill.py): the slots a
            # killed request was claiming stay locked until PostgreSQL notices the dead
            # connection, and a study filled to the last batch then reads as full for a moment.
            self.full.append(response)
            time.sleep(0.25)
            self.page = None
            return True
        if was_rating:
            self.acked.append(urlsplit(action).path)
        # a page sent in a POST's answer names its own address (X-Page-Url: the test after
        # the consent, the first item after the test), where its script moves the address bar
        self.url = urljoin(str(response.url), response.headers.get("X-Page-Url", ""))
        self.page = response
        return True

    def finish(self, deadline: float) -> None:
        while self.step():
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.pid} did not finish in time at {self.url}")

    def close(self) -> None:
        self.client.close()


class PrivateRedis:
    """A throw-away redis-server on a free loopback port, no persistence; ``restart`` kills it
    (SIGKILL) and starts a new one on the same port."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            ["redis-server", "--bind", "127.0.0.1", "--port", str(self.port), "--save", ""]
            + ["--appendonly", "no", "--loglevel", "warning"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        wait_port(self.port)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def restart(self) -> None:
        self.kill()
        self.start()


class CeleryWorker:
    """``celery -A ambisite worker --pool=solo`` against a private broker and database."""

    def __init__(self, database_url: str, broker_url: str) -> None:
        self.log = tempfile.NamedTemporaryFile(prefix="ambisite-faults-celery-", suffix=".log")
        self.proc = subprocess.Popen(
            [str(ROOT / ".venv" / "bin" / "celery"), "-A", "ambisite", "worker", "--pool=solo"]
            + ["-c", "1", "-n", "faults@%h", "--loglevel=info", "--without-gossip"]
            + ["--without-mingle", "--without-heartbeat"],
            env=django_env(database_url, CELERY_BROKER_URL=broker_url),
            cwd=ROOT,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def output(self) -> str:
        return Path(self.log.name).read_text(errors="replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)
        self.log.close()
