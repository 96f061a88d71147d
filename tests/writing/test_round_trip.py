"""The stories written on the site, once rated, export as AmbiStory JSON that
``import_ambistory`` accepts unchanged into a fresh database (a new SQLite file, migrated
from scratch in a subprocess), and that database exports the same document again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

from studies import services as study_services
from tests.studies.helpers import pid, qualify, rate_all
from tests.writing.helpers import make_pool, write_endings, written_setups
from writing import review

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


def manage(env: dict, *args: str) -> None:
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_written_and_rated_stories_round_trip_through_a_fresh_database(researcher, tmp_path):
    make_pool()
    written = written_setups(researcher, 2)
    write_endings(written, researcher)
    rating = review.rating_study_create(
        written=list(review.ready_setups()),
        title="Rate",
        slug="rate",
        dataset="mine",
        split="w1",
        ratings_per_sample=2,
        by=researcher,
    )
    assert rating.samples.count() == 12
    rating = study_services.study_open(study=rating)
    for n in range(200, 212):
        participant = study_services.participant_arrive(study=rating, pid=pid(n))
        qualify(participant)
        rate_all(participant)
    first = tmp_path / "written.json"
    call_command("export_ambistory", split="w1", dataset="mine", output=str(first))
    data = json.loads(first.read_text(encoding="utf-8"))
    assert len(data) == 12 and all(len(s["choices"]) == 2 for s in data.values())

    env = {**os.environ, "DEBUG": "1", "DATABASE_URL": f"sqlite:///{tmp_path / 'fresh.sqlite3'}"}
    env.pop("CELERY_BROKER_URL", None)
    again = tmp_path / "again.json"
    manage(env, "migrate", "-v", "0")
    manage(env, "import_ambistory", str(first), "--split", "w1", "--dataset", "mine")
    manage(env, "export_ambistory", "--split", "w1", "--dataset", "mine", "-o", str(again))
    assert again.read_text(encoding="utf-8") == first.read_text(encoding="utf-8")
