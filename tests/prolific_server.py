"""A small fake of Prolific's API for tests: ``GET /api/v1/submissions/<id>/``.

It listens on 127.0.0.1 on a random port in a background thread, answers the submissions it
was given (404 for others), and records every request's path and headers. ``status`` forces
an error answer for every request; ``delay`` holds each answer back (for timeouts).

    with ProlificServer({"se1": submission("se1", PID, "st1")}) as server:
        settings.PROLIFIC_API_URL = server.base_url
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def submission(session_id: str, pid: str, study_id: str, status: str = "ACTIVE") -> dict:
    """A submission as Prolific's API returns it (the fields the site reads, and a few more)."""
    return {
        "id": session_id,
        "participant": pid,
        "study_id": study_id,
        "status": status,
        "started_at": "2026-11-26T21:00:00Z",
        "completed_at": None,
    }


@dataclass
class Seen:
    path: str
    headers: dict[str, str]


class ProlificServer:
    def __init__(self, submissions: dict[str, dict] | None = None):
        self.submissions = dict(submissions or {})
        self.status: int | None = None
        self.delay = 0.0
        self.requests: list[Seen] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> ProlificServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # quiet in test output
                pass

            def do_GET(self) -> None:
                fake.requests.append(Seen(self.path, dict(self.headers)))
                if fake.delay:
                    time.sleep(fake.delay)
                prefix = "/api/v1/submissions/"
                found = None
                if self.path.startswith(prefix) and self.path.endswith("/"):
                    found = fake.submissions.get(self.path[len(prefix) : -1])
                if fake.status is not None:
                    self._send(fake.status, {"error": {"title": "forced"}})
                elif found is None:
                    self._send(404, {"error": {"title": "Not found"}})
                else:
                    self._send(200, found)

            def _send(self, status: int, body: dict) -> None:
                raw = json.dumps(body).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(raw)))
                    self.end_headers()
                    self.wfile.write(raw)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
                    pass

        return Handler
