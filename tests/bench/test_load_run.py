"""``make bench-load``'s command line (bench/load/run.py): by default it measures AmbiSite at
the size the repo's gunicorn config runs in production, not a size of its own."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "load"))

import run  # noqa: E402
import tool_ambisite  # noqa: E402

pytestmark = pytest.mark.bench


def test_the_default_size_is_the_gunicorn_config_s(monkeypatch):
    monkeypatch.delenv("WEB_CONCURRENCY", raising=False)
    monkeypatch.delenv("GUNICORN_THREADS", raising=False)
    conf = runpy.run_path(str(tool_ambisite.GUNICORN_CONFIG))
    assert run.repo_size() == f"{conf['workers']}x{conf['threads']}" == "2x4"
    monkeypatch.setenv("WEB_CONCURRENCY", "5")
    assert run.repo_size() == "5x4"  # what gunicorn would run here
