"""Potato 2.12.1 under the load generator: its own virtualenv, a run folder, gunicorn.

The virtualenv (``var/bench/potato-venv``, python3.11, ``potato-annotation==2.12.1`` and
gunicorn) is made on first use. Each run gets a fresh folder with ``bench/load/potato/
config.yaml`` and ``data/items.jsonl`` (the same AmbiStory samples as the AmbiSite study), and
Potato is served as its deployment serves it: gunicorn, 1 worker (it keeps its item pool in
memory per process) x 8 threads, on its WSGI factory ``create_app``.

A Potato participant rates in JavaScript: ticking a radio button schedules a save, and Next
sends the save (``POST /updateinstance``), then the navigation (``POST /annotate`` with
``X-Potato-Navigation: 1``, answered with JSON), then loads the page again. The profile sends
those three requests per rating (the debounced save of the tick is overtaken by Next when
there is no think time, so it is not sent; nor are the page's other background requests:
this favours Potato).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path
from urllib.parse import urljoin

from generator import Browser, Page, Profile, forms, middle

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
VENV = ROOT / "var" / "bench" / "potato-venv"
VERSION = "2.12.1"
GUNICORN = "27.0.1"
INSTANCE = re.compile(r'id="instance_id"[^>]*value="([^"]*)"|value="([^"]*)"[^>]*id="instance_id"')


def ensure_venv(python: str = "python3.11") -> Path:
    """The bench's own virtualenv with Potato and gunicorn (made once, reused)."""
    marker = VENV / f".potato-{VERSION}"
    if marker.exists():
        return VENV
    if not (VENV / "bin" / "python").exists():
        subprocess.run([python, "-m", "venv", str(VENV)], check=True)
    pip = [str(VENV / "bin" / "pip"), "install", "-q", "--disable-pip-version-check"]
    subprocess.run(pip + [f"potato-annotation=={VERSION}", f"gunicorn=={GUNICORN}"], check=True)
    marker.touch()
    return VENV


def write_items(samples: dict[str, dict], path: Path) -> None:
    """One Potato item per AmbiStory sample: the story, then the meaning to rate."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as out:
        for sid, s in samples.items():
            story = " ".join(p for p in (s["precontext"], s["sentence"], s["ending"]) if p)
            meaning, word = s["judged_meaning"], s["homonym"]
            text = f"{story} How plausible is the meaning '{meaning}' of the word '{word}'?"
            out.write(json.dumps({"id": sid, "text": text}) + "\n")


def prepare(run_dir: Path, samples: dict[str, dict]) -> Path:
    if run_dir.exists():
        shutil.rmtree(run_dir)
    run_dir.mkdir(parents=True)
    shutil.copy(HERE / "potato" / "config.yaml", run_dir / "config.yaml")
    write_items(samples, run_dir / "data" / "items.jsonl")
    return run_dir


def start(run_dir: Path, bind: str, workers: int = 1, threads: int = 8) -> subprocess.Popen:
    """gunicorn on Potato's factory in its own process group (the caller kills the group)."""
    log = (run_dir / "server.log").open("w")
    return subprocess.Popen(
        [str(VENV / "bin" / "gunicorn"), "-k", "gthread", "-w", str(workers)]
        + ["--threads", str(threads), "-b", bind, "--timeout", "120"]
        + ["potato.flask_server:create_app('config.yaml')"],
        cwd=run_dir,
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "POTATO_NONINTERACTIVE": "1", "PYTHONUNBUFFERED": "1"},
        start_new_session=True,
    )


def stored_ratings(run_dir: Path, quota: int = 5) -> dict | None:
    """What Potato wrote to its annotation output (each user's state file): ratings stored,
    items rated more often than ``quota`` and the most ratings of one item; None when the
    layout is not the one expected."""
    per_item: dict[str, int] = {}
    seen = False
    for path in (run_dir / "annotation_output").glob("*/user_state.json"):
        seen = True
        try:
            state = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        for item, labels in (state.get("instance_id_to_label_to_value") or {}).items():
            if labels:
                per_item[item] = per_item.get(item, 0) + 1
    if not seen:
        return None
    return {
        "stored": sum(per_item.values()),
        "items_over_quota": sum(1 for n in per_item.values() if n > quota),
        "max_ratings_of_an_item": max(per_item.values(), default=0),
    }


class PotatoProfile(Profile):
    name = "potato"

    def arrival_url(self, base: str, n: int) -> str:
        return f"{base}/?PROLIFIC_PID={n:024x}&STUDY_ID=bench&SESSION_ID=se{n}"

    def outcome(self, page: Page) -> str | None:
        if "- Complete</title>" in page.text or page.url.rstrip("/").endswith("/done"):
            return "done"
        if "- Nothing to annotate</title>" in page.text:
            return "refused"
        return None

    def is_rating(self, page: Page) -> bool:
        return 'id="instance_id"' in page.text and "shadcn-likert-input" in page.text

    def form(self, page: Page):
        # consent/instructions phases would be plain forms; none is configured here
        return next((f for f in forms(page.text) if f.method == "post"), None)

    async def rate(self, browser: Browser, page: Page) -> Page:
        found = INSTANCE.search(page.text)
        if not found:
            raise RuntimeError(f"no instance id at {page.url}")
        instance = found.group(1) or found.group(2)
        radios = [
            a
            for f in forms(page.text)
            for a in f.radio_groups().get("plausibility", [])
            if "schema" in a and "label_name" in a
        ]
        if not radios:
            raise RuntimeError(f"no likert scale at {page.url}")
        chosen = middle(radios)
        save = {
            "instance_id": instance,
            "annotations": {f"{chosen['schema']}:{chosen['label_name']}": chosen["value"]},
            "cleared_schemas": [],
            "span_annotations": [],
            "client_timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
            "response_time_seconds": 0.5,
        }
        saved = await browser.request("POST", urljoin(page.url, "/updateinstance"), json=save)
        if (
            saved.status >= 400
            or '"status": "error"' in saved.text
            or '"status":"error"' in saved.text
        ):
            raise RuntimeError(f"save refused: {saved.status} {saved.text[:120]}")
        nav = {"action": "next_instance", "instance_id": instance}
        moved = await browser.request(
            "POST",
            urljoin(page.url, "/annotate"),
            json=nav,
            headers={"X-Potato-Navigation": "1"},
        )
        if moved.status >= 400:
            raise RuntimeError(f"navigation refused: {moved.status}")
        return await browser.request("GET", page.url.split("?", 1)[0])
