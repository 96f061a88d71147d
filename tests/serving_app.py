"""A WSGI app for tests/test_gunicorn_worker.py: every request takes 0.3 s of wall time
(asleep, as a request waiting on PostgreSQL) and answers with its path."""

from __future__ import annotations

import time

SECONDS = 0.3


def app(environ, start_response):
    if environ["PATH_INFO"] != "/ready":
        time.sleep(SECONDS)
    body = environ["PATH_INFO"].encode()
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
    return [body]
