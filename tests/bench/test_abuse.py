"""bench/abuse.py at its smoke size (about 45 s): every attack of issue 29 against a live
gunicorn on loopback, and every real arrival still gets a batch and qualifies (a burnt PID
after the researcher's reset)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import scratch  # noqa: E402

pytestmark = pytest.mark.bench


def test_every_real_arrival_gets_in_under_every_attack_at_the_smoke_size(tmp_path):
    if not os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")):
        pytest.skip("the attacks need PostgreSQL's row locks (CI runs it there)")
    out = tmp_path / "abuse.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "PYTEST"))}
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "abuse.py"), "--smoke", "--json", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {row["attack"]: row for row in json.loads(out.read_text())["attacks"]}
    assert set(rows) == {
        "made-up-pids",
        "unqualified-cap",
        "double-count",
        "qualified-squat",
        "burn-pid",
    }
    for name, row in rows.items():
        assert row["real_tried"] == 4, name
        got_in = row["real_in_after_reset"] if name == "burn-pid" else row["real_in"]
        assert got_in == row["real_tried"], (name, row)
        assert row["real_qualified"] == row["real_tried"], (name, row)
        assert name == "burn-pid" or row["attacker_requests"] > 0, name
    assert rows["burn-pid"]["real_in"] == 0  # a burnt PID is refused until it is reset
    assert "burn-pid" in done.stdout and "real in" in done.stdout
    # the run drops its scratch database, even after a failure
    url = os.environ["DATABASE_URL"]
    with psycopg.connect(scratch.admin_url(url)) as conn:
        left = conn.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [scratch.scratch_name(url, "abuse")]
        ).fetchone()
    assert left is None
