"""gunicorn's gthread worker, with a rater's next item served after everyone else's request.

Why: when Prolific releases a study, hundreds of people open its link within seconds while
the first of them are already rating. With one first-come-first-served queue every step of
an arrival (the link's page, the consent, the qualification test) waits behind as many
rating requests as there are raters, so the newcomer watches a consent button for seconds
and may return the study; a rater already at item 12 loses nothing much by waiting a moment
longer for item 13. docs/performance-log.md, "Arrivals first", has the measurements.

What this worker does, beyond gunicorn 27's ``gthread.ThreadWorker`` (whose accepting,
parsing, keep-alive and shutdown it keeps):

* It takes connections out of the shared listening queue as they come, instead of leaving
  them there: a request still in the kernel's queue cannot be put behind anything. So that no
  worker hoards them while another idles, a worker accepts only while it holds no more
  connections than the least loaded of its peers plus ``BALANCE_SLACK`` (the workers publish
  how many they hold in a table of shared memory that the master creates before forking,
  ``PeerLoads``), and never more than ``worker_connections``.
* Before a connection gets a thread, its first bytes are peeked (not read) for the request
  line: ``deferred`` says whether it is a rating (``/s/<slug>/rate/...``, the POST and the
  next item's page). Threads take the other requests first, in arrival order, and a rating
  only when none is waiting, or once it has waited ``GUNICORN_RATING_MAX_WAIT`` seconds
  (default 5: a stream of arrivals delays a rater by that much at most); ``Queues``.
* A connection that has sent nothing yet waits on the poller, not on a thread, and is closed
  after ``FIRST_BYTES_TIMEOUT`` seconds.
* A connection whose answer said "close" (every one, with keep-alive off) is half-closed and
  then read on the poller until the client closes its side (``Lingering``). gunicorn 27 does
  the same in ``util.close_graceful``, but on the loop's own thread, blocking in ``recv`` for
  the client's FIN (up to 2 s): no connection was accepted or handed to a thread meanwhile,
  after every single request.

Left as gthread does them: a kept-alive connection's next request (keep-alive is off by
default, ``GUNICORN_KEEPALIVE``) goes with the others, and with gunicorn's own TLS
(``certfile``) the peeked bytes are encrypted, so nothing is deferred: the deployment's TLS
proxy speaks plain HTTP to gunicorn. ``GUNICORN_WORKER_CLASS=gthread`` gives gunicorn's own
worker back (one queue, first come, first served, with ``GUNICORN_WORKER_CONNECTIONS`` at
2 x threads: docs/deployment.md).
"""

from __future__ import annotations

import errno
import mmap
import re
import selectors
import socket
import struct
import time
from collections import deque
from collections.abc import Iterable
from functools import partial

from gunicorn.workers import gthread

from ambisite.env import env_int

# The request line of a rating: /s/<slug>/rate/ (the next item) and /s/<slug>/rate/<n>/
# (its page and its POST); studies/urls.py, tested against the URL configuration.
_DEFERRED = re.compile(rb"[A-Z]+ /s/[^/?# ]+/rate/")
PEEK_BYTES = 128
BALANCE_SLACK = 4
FIRST_BYTES_TIMEOUT = gthread.DEFAULT_WORKER_DATA_TIMEOUT
# A peer's entry older than this is a worker that stopped (or is stuck): left out.
STALE_S = 2.0
# A closed connection is read for the client's FIN this long at most, and this much of what
# it still sends is read and dropped (gunicorn's util.close_graceful: timeout, max_drain).
LINGER_S = 2.0
LINGER_DRAIN = 65536


def deferred(head: bytes) -> bool:
    """Whether a request whose first bytes are ``head`` is a rating (served after others)."""
    return _DEFERRED.match(head) is not None


def may_take_more(mine: int, peers: Iterable[int], slack: int = BALANCE_SLACK) -> bool:
    """A worker holding ``mine`` connections may accept another while it holds no more than
    the least loaded live peer plus ``slack`` (any number while it has no live peer)."""
    least = min(peers, default=None)
    return least is None or mine <= least + slack


class Queues:
    """The connections a worker holds that have no thread yet: others before ratings, each
    in the order they came; a rating that has waited ``max_wait`` seconds goes first."""

    def __init__(self, max_wait: float) -> None:
        self.max_wait = max_wait
        self.first: deque = deque()
        self.later: deque = deque()

    def __len__(self) -> int:
        return len(self.first) + len(self.later)

    def push(self, conn, later: bool, now: float) -> None:
        (self.later if later else self.first).append((now, conn))

    def pop(self, now: float):
        if self.later and (not self.first or now - self.later[0][0] >= self.max_wait):
            return self.later.popleft()[1]
        return self.first.popleft()[1]


class PeerLoads:
    """How many connections each worker holds, in shared memory: one slot per worker (its
    gunicorn age modulo ``slots``), written by its owner only, stamped with the time."""

    _ENTRY = struct.Struct("qd")

    def __init__(self, slots: int = 64) -> None:
        self.slots = slots
        self.memory = mmap.mmap(-1, slots * self._ENTRY.size)  # MAP_SHARED: kept over fork

    def publish(self, slot: int, held: int, now: float) -> None:
        self._ENTRY.pack_into(self.memory, slot * self._ENTRY.size, held, now)

    def others(self, slot: int, now: float) -> list[int]:
        """The counts of the live workers but ``slot`` (read every turn of a worker's loop:
        one unpack of the whole table, about 5 microseconds)."""
        entries = enumerate(self._ENTRY.iter_unpack(self.memory))
        return [held for n, (held, when) in entries if n != slot and now - when < STALE_S]


class Lingering:
    """Answered connections, half-closed (FIN sent), read on the worker's poller until the
    client closes its side, ``drain`` bytes came or ``seconds`` passed, then closed: what
    gunicorn's ``util.close_graceful`` does (RFC 9112 section 9.6: closing a socket with unread
    bytes sends RST, which can cut the answer short at the client), without blocking the loop
    in ``recv``. Runs on the loop's thread only."""

    def __init__(self, poller, seconds: float = LINGER_S, drain: int = LINGER_DRAIN) -> None:
        self.poller, self.seconds, self.drain = poller, seconds, drain
        self.entries: deque = deque()  # [deadline, socket or None once closed, bytes read]

    def __len__(self) -> int:
        return sum(1 for entry in self.entries if entry[1] is not None)

    def add(self, sock: socket.socket, now: float) -> None:
        try:
            sock.shutdown(socket.SHUT_WR)
        except OSError:  # the client is gone already
            sock.close()
            return
        sock.setblocking(False)
        entry = [now + self.seconds, sock, 0]
        self.entries.append(entry)
        self.poller.register(sock, selectors.EVENT_READ, partial(self._readable, entry))

    def _readable(self, entry: list, sock: socket.socket) -> None:
        try:
            data = sock.recv(4096)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        entry[2] += len(data)
        if not data or entry[2] >= self.drain:
            self._close(entry)

    def _close(self, entry: list) -> None:
        sock, entry[1] = entry[1], None
        if sock is None:
            return
        try:
            self.poller.unregister(sock)
        except (KeyError, ValueError, OSError):
            pass
        sock.close()

    def expire(self, now: float) -> None:
        """Close those past their deadline (entries are in deadline order) and forget those
        closed already."""
        while self.entries and (self.entries[0][1] is None or self.entries[0][0] <= now):
            self._close(self.entries.popleft())


class _Conn(gthread.TConn):
    """gthread's connection, closed gracefully by the worker's ``Lingering``."""

    def __init__(self, lingering: Lingering, *args) -> None:
        super().__init__(*args)
        self.lingering = lingering

    def close(self, graceful: bool = False) -> None:
        if graceful:
            self.lingering.add(self.sock, time.monotonic())
        else:
            super().close()


# Created when gunicorn's master loads this worker class, so every worker it forks shares it.
PEERS = PeerLoads()


class ArrivalsFirstWorker(gthread.ThreadWorker):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.queues = Queues(max_wait=env_int("GUNICORN_RATING_MAX_WAIT", 5, error=SystemExit))
        self.running = 0
        self.slot = self.age % PEERS.slots

    # gthread's run loop accepts while ``nr_conns < worker_connections``, read each turn.
    @property
    def worker_connections(self) -> int:
        now = time.monotonic()
        PEERS.publish(self.slot, self.nr_conns, now)
        if may_take_more(self.nr_conns, PEERS.others(self.slot, now)):
            return self.cfg.worker_connections
        return self.nr_conns

    @worker_connections.setter
    def worker_connections(self, value: int) -> None:
        pass  # gthread's __init__ sets it from the configuration; read from there instead

    def run(self) -> None:
        self.lingering = Lingering(self.poller)  # the poller exists from init_process on
        super().run()

    def accept(self, listener) -> None:
        """gthread's accept, with connections that close without blocking the loop."""
        try:
            sock, client = listener.accept()
        except OSError as e:
            if e.errno not in (errno.EAGAIN, errno.ECONNABORTED, errno.EWOULDBLOCK):
                raise
            return
        self.nr_conns += 1
        sock.setblocking(True)
        self.enqueue_req(_Conn(self.lingering, self.cfg, sock, client, listener.getsockname()))

    def murder_pending(self) -> None:
        """gthread's sweep of silent connections, called every turn of the loop (and while
        stopping); the lingering ones past their time go with them."""
        super().murder_pending()
        self.lingering.expire(time.monotonic())

    def enqueue_req(self, conn) -> None:
        """gthread calls this for an accepted connection and for a kept-alive one that is
        readable again; both go to the queues instead of straight to the thread pool."""
        now = time.monotonic()
        if conn.initialized:  # a kept-alive connection's next request
            self.queues.push(conn, later=False, now=now)
        else:
            try:
                head = conn.sock.recv(PEEK_BYTES, socket.MSG_PEEK | socket.MSG_DONTWAIT)
            except BlockingIOError:  # nothing sent yet: wait on the poller, not a thread
                conn.timeout = now + FIRST_BYTES_TIMEOUT
                self.pending_conns.append(conn)
                self.poller.register(
                    conn.sock,
                    selectors.EVENT_READ,
                    partial(self.on_pending_socket_readable, conn),
                )
                return
            except OSError:
                head = b""  # reset by the client: the thread finds out and closes it
            conn.data_ready = True
            self.queues.push(conn, later=deferred(head), now=now)
        self.dispatch()

    def dispatch(self) -> None:
        while self.running < self.cfg.threads and self.queues:
            conn = self.queues.pop(time.monotonic())
            self.running += 1
            future = self.tpool.submit(self.handle, conn)
            future.add_done_callback(
                lambda fut, conn=conn: self.method_queue.defer(self.finished, conn, fut)
            )

    def finished(self, conn, future) -> None:
        self.running -= 1
        self.finish_request(conn, future)
        self.dispatch()
