"""gunicorn with the repo's config in a child process, for the tests that serve over a real
socket (tests/test_serving.py, tests/test_gunicorn_worker.py): started on a free loopback
port, waited for until it answers, stopped with its whole process group."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.faults.stack import free_port

ROOT = Path(__file__).resolve().parent.parent
GUNICORN_CONF = ROOT / "ambisite" / "gunicorn.conf.py"


@contextmanager
def gunicorn(
    log: Path,
    ready: Callable[[int], bool],
    *,
    app: str | None = None,
    drop: tuple[str, ...] = (),
    timeout: float = 30,
    **env_vars: str,
) -> Iterator[int]:
    """Serve ``app`` (the config's own, ``ambisite.wsgi``, when None) and yield the port once
    ``ready(port)`` is true. The child gets this process's environment without pytest's and
    Django's variables and without ``drop``, plus ``env_vars``; its output goes to ``log``,
    which a failed start shows."""
    port = free_port()
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "PYTEST")) and k not in drop
    }
    env.update(GUNICORN_BIND=f"127.0.0.1:{port}", **env_vars)
    command = [str(Path(sys.executable).parent / "gunicorn"), "-c", str(GUNICORN_CONF)]
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            command + ([app] if app else []),
            env=env,
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + timeout
        while not _answers(ready, port):
            if time.monotonic() > deadline or proc.poll() is not None:
                pytest.fail(f"gunicorn did not answer:\n{log.read_text(errors='replace')}")
            time.sleep(0.1)
        yield port
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(timeout=30)


def _answers(ready: Callable[[int], bool], port: int) -> bool:
    try:
        return ready(port)
    except OSError:  # not listening yet
        return False
