"""A small scriptable server that speaks the OpenAI chat-completions protocol, for tests.

It listens on 127.0.0.1 on a random port in a background thread. A test scripts replies in
order (``server.script(Reply(...), ...)``) or sets ``server.responder`` to compute one from
the request; with neither, it answers "4". It records every request (JSON body, headers,
arrival time) and the largest number of requests it was serving at the same time.

    with LLMServer() as server:
        server.script(Reply.rate_limited(retry_after="1"), Reply.text("3"))
        # the operator's endpoint "test" points at it (pytest-django's ``settings`` fixture)
        settings.LLM_ENDPOINTS = {"test": {"base_url": server.base_url, ...}}
        backend = OpenAIChatBackend(endpoint="test", model="m")
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Reply:
    status: int = 200
    content: str = "4"
    top_logprobs: dict[str, float] | None = None  # token -> probability at the score token
    prefix_tokens: tuple[str, ...] = ()  # answer tokens before the score token ("**")
    headers: dict[str, str] = field(default_factory=dict)
    raw_body: str | None = None  # sent as is (malformed JSON, error pages)
    delay: float = 0.0
    cut_short: bool = False  # the connection closes half way through the announced body

    @classmethod
    def text(cls, content: str, **kw) -> Reply:
        return cls(content=content, **kw)

    @classmethod
    def with_logprobs(cls, probs: dict[str, float], content: str | None = None, **kw) -> Reply:
        argmax = max(probs, key=probs.get)
        return cls(content=content if content is not None else argmax, top_logprobs=probs, **kw)

    @classmethod
    def rate_limited(cls, retry_after: str | None = None) -> Reply:
        headers = {"Retry-After": retry_after} if retry_after is not None else {}
        return cls(status=429, headers=headers, raw_body='{"error": {"message": "slow down"}}')

    @classmethod
    def server_error(cls, status: int = 500) -> Reply:
        return cls(status=status, raw_body='{"error": {"message": "boom"}}')


@dataclass
class Received:
    body: dict
    headers: dict[str, str]
    at: float


def _logprobs(reply: Reply) -> dict | None:
    if reply.top_logprobs is None:
        return None
    top = [{"token": t, "logprob": math.log(p)} for t, p in reply.top_logprobs.items() if p > 0]
    best = max(top, key=lambda e: e["logprob"])
    before = [{"token": t, "logprob": 0.0, "top_logprobs": []} for t in reply.prefix_tokens]
    return {"content": [*before, {**best, "top_logprobs": top}]}


def completion(reply: Reply, model: str) -> dict:
    """The JSON body of a successful chat completion."""
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": f"served-{model}",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": reply.content},
                "logprobs": _logprobs(reply),
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


class LLMServer:
    def __init__(self, delay: float = 0.0):
        self.delay = delay  # default seconds each answer takes (to observe concurrency)
        self.requests: list[Received] = []
        self.responder: Callable[[dict], Reply] | None = None
        self.max_in_flight = 0
        self._queue: deque[Reply] = deque()
        self._in_flight = 0
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def script(self, *replies: Reply) -> None:
        self._queue.extend(replies)

    def _next_reply(self, body: dict) -> Reply:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        return self.responder(body) if self.responder else Reply(delay=self.delay)

    def _enter(self, body: dict, headers: dict) -> None:
        with self._lock:
            self.requests.append(Received(body, headers, time.monotonic()))
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)

    def _leave(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's naming)
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                server._enter(body, dict(self.headers))
                left = False
                try:
                    if self.path != "/v1/chat/completions":
                        return self._send(
                            Reply(status=404, raw_body='{"error": "not found"}'), body
                        )
                    reply = server._next_reply(body)
                    time.sleep(reply.delay or server.delay)
                    # out of flight before the answer goes out: a client that has its answer
                    # may send its next request before this thread would reach `finally`
                    server._leave()
                    left = True
                    self._send(reply, body)
                finally:
                    if not left:
                        server._leave()

            def _send(self, reply: Reply, body: dict) -> None:
                if reply.raw_body is not None:
                    data = reply.raw_body.encode()
                else:
                    data = json.dumps(completion(reply, body.get("model", ""))).encode()
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                if reply.cut_short:
                    data, self.close_connection = data[: len(data) // 2], True
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client timed out and went away, as a test may intend

            def log_message(self, *args):  # keep test output quiet
                pass

        return Handler

    def __enter__(self) -> LLMServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)
