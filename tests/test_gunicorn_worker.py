"""ambisite/gunicorn_worker.py: arrivals before ratings, balanced workers, silent clients."""

from __future__ import annotations

import itertools
import os
import selectors
import socket
import threading
import time
from contextlib import ExitStack

import pytest
from django.urls import reverse

from ambisite import gunicorn_worker
from ambisite.gunicorn_worker import (
    ArrivalsFirstWorker,
    Lingering,
    PeerLoads,
    Queues,
    deferred,
    may_take_more,
)
from tests.gunicorn_process import gunicorn


def _line(method: str, path: str) -> bytes:
    return f"{method} {path} HTTP/1.1\r\nHost: x\r\n".encode()


def test_a_rating_and_the_next_items_page_are_deferred_and_nothing_else_a_participant_sends():
    slug = "my-study-2"
    for name, kwargs in (("rate", {"pos": 3}), ("rate_next", {})):
        path = reverse(f"participate:{name}", kwargs={"slug": slug, **kwargs})
        assert deferred(_line("POST", path)) and deferred(_line("GET", path)), path
        assert deferred(_line("GET", path + "?resume=1"))
    for name in ("arrive", "consent", "welcome", "guidelines", "qualification", "hold", "done"):
        path = reverse(f"participate:{name}", kwargs={"slug": slug})
        assert not deferred(_line("GET", path)) and not deferred(_line("POST", path)), path
    for path in ("/static/css/site.css", "/studies/1/live.json", "/api/v1/", "/rate/", "/s/rate/"):
        assert not deferred(_line("GET", path)), path
    assert not deferred(b"") and not deferred(b"GARBAGE") and not deferred(b"GET /s/x/ra")


def test_a_worker_takes_more_while_it_holds_no_more_than_its_least_loaded_peer_and_a_few():
    assert may_take_more(0, [])  # alone
    assert may_take_more(10, [6, 30], slack=4)
    assert not may_take_more(11, [6, 30], slack=4)
    assert may_take_more(3, [0, 0], slack=4) and not may_take_more(5, [0], slack=4)


def test_others_go_before_ratings_in_arrival_order_until_a_rating_has_waited_long_enough():
    queues = Queues(max_wait=5)
    queues.push("rating-1", later=True, now=0.0)
    queues.push("consent-1", later=False, now=0.1)
    queues.push("rating-2", later=True, now=0.2)
    queues.push("link-2", later=False, now=0.3)
    assert len(queues) == 4
    assert [queues.pop(now=1.0), queues.pop(now=1.0)] == ["consent-1", "link-2"]
    assert [queues.pop(now=1.0), queues.pop(now=1.0)] == ["rating-1", "rating-2"]
    assert not queues
    queues.push("rating-3", later=True, now=10.0)
    queues.push("test-3", later=False, now=14.0)
    assert queues.pop(now=15.0) == "rating-3"  # waited 5 s: before the newer arrival
    assert queues.pop(now=15.0) == "test-3"


def test_peer_loads_are_shared_with_forked_workers_and_a_silent_worker_drops_out():
    peers = PeerLoads(slots=8)
    now = time.monotonic()
    peers.publish(1, 7, now)
    child = os.fork()
    if child == 0:  # a worker forked by the master writes its own slot
        peers.publish(2, 3, time.monotonic())
        os._exit(0)
    os.waitpid(child, 0)
    assert sorted(peers.others(0, time.monotonic())) == [3, 7]
    assert peers.others(1, time.monotonic()) == [3]  # its own slot left out
    peers.publish(2, 3, now - 10)  # a worker that stopped publishing
    assert peers.others(0, time.monotonic()) == [7]


def test_the_run_loop_may_accept_only_while_the_worker_is_not_ahead_of_its_peers(monkeypatch):
    """gthread's run loop accepts while ``nr_conns < worker_connections``: the property
    publishes this worker's count and answers from its peers' (a worker built without
    gunicorn's arbiter: only what the property reads is set)."""
    peers = PeerLoads(slots=4)
    monkeypatch.setattr(gunicorn_worker, "PEERS", peers)
    worker = ArrivalsFirstWorker.__new__(ArrivalsFirstWorker)
    worker.cfg = type("Cfg", (), {"worker_connections": 1000})()
    worker.slot, worker.nr_conns = 0, 9
    peers.publish(1, 5, time.monotonic())
    assert worker.worker_connections == 1000  # 9 <= 5 + 4: it may take more
    worker.nr_conns = 10
    assert worker.worker_connections == 10  # ahead: the loop stops accepting
    assert peers.others(1, time.monotonic()) == [10]  # and its peers see it
    peers.publish(1, 5, time.monotonic() - 60)  # the peer stopped: alone again
    assert worker.worker_connections == 1000


def _turn(poller) -> None:
    """One turn of a worker's loop: the callbacks of what is readable."""
    for key, _ in poller.select(timeout=2):
        key.data(key.fileobj)


def test_a_closed_connection_is_read_until_the_client_closes_a_cap_is_read_or_its_time_is_up():
    poller = selectors.DefaultSelector()
    lingering = Lingering(poller, seconds=5, drain=10)
    server, client = socket.socketpair()
    lingering.add(server, now=0.0)
    assert client.recv(1) == b""  # the FIN is sent at once
    client.sendall(b"12345")  # read and dropped
    _turn(poller)
    assert len(lingering) == 1 and server.fileno() != -1
    client.sendall(b"67890")  # the cap: closed
    _turn(poller)
    assert len(lingering) == 0 and server.fileno() == -1
    server, client = socket.socketpair()
    lingering.add(server, now=0.0)
    client.close()  # the client's FIN: closed
    _turn(poller)
    assert len(lingering) == 0 and server.fileno() == -1
    server, client = socket.socketpair()
    lingering.add(server, now=0.0)
    lingering.expire(now=4.9)
    assert len(lingering) == 1
    lingering.expire(now=5.0)  # a client that never closes: closed at the deadline
    assert len(lingering) == 0 and server.fileno() == -1 and not poller.get_map()
    assert not lingering.entries
    client.close()


# --- under gunicorn ---------------------------------------------------------------------------


@pytest.fixture
def serve(tmp_path):
    """gunicorn with the repo's config serving tests/serving_app.py (each request 0.3 s)."""
    with ExitStack() as stack:
        logs = (tmp_path / f"gunicorn-{n}.log" for n in itertools.count())

        def start(**env_vars) -> int:
            return stack.enter_context(
                gunicorn(
                    next(logs),
                    lambda port: _request(port, "GET", "/ready", timeout=1) == b"/ready",
                    app="tests.serving_app:app",
                    GUNICORN_LOG_LEVEL="warning",
                    **env_vars,
                )
            )

        yield start


def _exchange(sock: socket.socket, method: str, path: str) -> bytes:
    """Send one request and read until the server closes its side; the answer's body."""
    sock.sendall(f"{method} {path} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n".encode())
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data.rpartition(b"\r\n\r\n")[2]


def _request(port: int, method: str, path: str, timeout: float = 10) -> bytes | None:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
            return _exchange(sock, method, path)
    except OSError:
        return None


def _finish_order(port: int) -> list[str]:
    """Four ratings sent at once, a consent 0.1 s later, to one worker with one thread: the
    order in which they are answered."""
    done: list[str] = []
    lock = threading.Lock()

    def send(path: str) -> None:
        body = _request(port, "POST", path)
        with lock:
            done.append((body or b"failed").decode())

    threads = [threading.Thread(target=send, args=(f"/s/st/rate/{n}/",)) for n in range(1, 5)]
    for thread in threads:
        thread.start()
        time.sleep(0.01)
    time.sleep(0.1)
    arrival = threading.Thread(target=send, args=("/s/st/consent/",))
    arrival.start()
    for thread in [*threads, arrival]:
        thread.join(timeout=20)
    return done


def test_an_arrival_is_answered_before_the_ratings_that_were_waiting_when_it_came(serve):
    order = _finish_order(serve(WEB_CONCURRENCY="1", GUNICORN_THREADS="1"))
    assert len(order) == 5 and order.index("/s/st/consent/") == 1, order  # after the running one


def test_with_no_wait_allowed_or_gunicorns_own_worker_it_is_first_come_first_served(serve):
    for env in ({"GUNICORN_RATING_MAX_WAIT": "0"}, {"GUNICORN_WORKER_CLASS": "gthread"}):
        order = _finish_order(serve(WEB_CONCURRENCY="1", GUNICORN_THREADS="1", **env))
        assert len(order) == 5 and order[-1] == "/s/st/consent/", (env, order)


def test_a_client_that_sends_nothing_holds_no_thread_and_is_closed_after_the_timeout(serve):
    port = serve(WEB_CONCURRENCY="1", GUNICORN_THREADS="1")
    silent = socket.create_connection(("127.0.0.1", port), timeout=10)
    try:
        start = time.monotonic()
        assert _request(port, "GET", "/s/st/") == b"/s/st/"  # the one thread was free
        assert time.monotonic() - start < 3
        assert silent.recv(1) == b""  # closed by the worker, not answered
        assert 4 < time.monotonic() - start < 9
    finally:
        silent.close()


def _answered_not_closed(port: int, path: str) -> socket.socket:
    """A client that reads its whole answer, and the server's FIN, and keeps its own side of
    the connection open."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    assert _exchange(sock, "GET", path) == path.encode()
    return sock


def test_a_client_that_keeps_its_side_open_after_its_answer_does_not_stall_the_worker(serve):
    """gunicorn 27 waits for the client's FIN on the loop's thread (up to 2 s, after every
    answer with keep-alive off): one client that never closes held up every other one."""
    port = serve(WEB_CONCURRENCY="1", GUNICORN_THREADS="4")
    holders = [_answered_not_closed(port, f"/hold/{n}") for n in range(3)]
    try:
        start = time.monotonic()
        assert _request(port, "GET", "/s/st/") == b"/s/st/"
        assert time.monotonic() - start < 1.5  # one request of 0.3 s; stalled: 2.3 s or more
        time.sleep(gunicorn_worker.LINGER_S + 1)
        for sock in holders:  # closed by now: what it still sends is refused
            with pytest.raises(OSError):
                for _ in range(20):
                    sock.sendall(b"x" * 1024)
                    time.sleep(0.05)
    finally:
        for sock in holders:
            sock.close()
