"""gunicorn settings for production: ``gunicorn -c ambisite/gunicorn.conf.py``.

Every value can be changed from the environment (docs/deployment.md); a malformed number
stops gunicorn at start-up.

Why 2 processes x 4 threads by default (on the 2-core machine this is tuned on): a request
spends much of its time waiting on PostgreSQL, during which its thread releases the GIL, so
threads keep a process busy while another of its threads waits; and with one process per
core both cores run Python while PostgreSQL and the proxy take what the waits leave. A third
process (the default until 2026-11-28) only added a process to switch between: measured
alternating with this worker class, 2x4 served 308-400 rated items/s against 298-372 for
3x4 (mean +8 %, 200 participants), with 3.35-4.11 against 3.82-4.74 ms of web CPU and
1.58-2.00 against 1.85-2.13 ms of PostgreSQL CPU per rated item, and got a release burst's
arrivals to their first item at a p95 of 0.95-4.02 s (median 1.03) against 1.68-2.75 s
(median 2.29) (docs/performance-log.md, "Two processes, not three"). 8 threads hold at most
8 persistent database connections (DB_CONN_MAX_AGE), far below PostgreSQL's default of 100
even with a second web container. On a bigger machine start from WEB_CONCURRENCY = cores
and measure (`make bench-load BENCH_LOAD_ARGS="--sizes 4x4,5x4 --tools ambisite"`).

Why keep-alive is off: so that every request is accepted anew by a worker with room, instead
of going to the worker that happened to accept its client's connection (the comment at
``keepalive``). Why the worker class is ours: so that arrivals are served before ratings and
the workers hold equal shares of the waiting requests (``ambisite/gunicorn_worker.py``).
"""

from __future__ import annotations

import os
from functools import partial

from ambisite.env import env_int

_int = partial(env_int, error=SystemExit)  # a bad number stops gunicorn at start-up


wsgi_app = "ambisite.wsgi:application"
# Loopback by default: a TLS proxy in front (docs/deployment.md). The container sets
# GUNICORN_BIND=0.0.0.0:8000 and publishes the port on the host's 127.0.0.1 only.
bind = os.environ.get("GUNICORN_BIND", "127.0.0.1:8000").split(",")
# Arrivals first: a rater's next item is served after other requests (the module's docstring).
ARRIVALS_FIRST = "ambisite.gunicorn_worker.ArrivalsFirstWorker"
worker_class = os.environ.get("GUNICORN_WORKER_CLASS", ARRIVALS_FIRST)
workers = _int("WEB_CONCURRENCY", 2)
threads = _int("GUNICORN_THREADS", 4)

# The app is imported once in the master and the workers are forked from it: every worker is
# ready at the same moment (with lazy loading the first one to finish importing Django took
# the whole first burst of keep-alive connections: in the 200-participant bench one worker
# served 6x the requests of another and ran out of CPU while the others idled), and a worker
# replaced after max_requests starts in milliseconds. The app opens no database connection
# at import, so no connection is shared across the fork. GUNICORN_PRELOAD=0 turns it off.
preload_app = os.environ.get("GUNICORN_PRELOAD", "1") not in ("", "0")

# A request running longer than this is a bug (exports stream, model runs go to Celery):
# its worker is restarted. Graceful stop: requests in flight get this long to finish.
timeout = _int("GUNICORN_TIMEOUT", 30)
graceful_timeout = _int("GUNICORN_GRACEFUL_TIMEOUT", 20)
# One request per connection (keep-alive off). ArrivalsFirstWorker takes connections from the
# listening socket while it holds no more than the least loaded worker (plus a few) and fewer
# than worker_connections, and orders what it holds (arrivals before ratings); with
# another worker class (gthread) the default is 2 x threads instead, so that a worker takes a
# new connection only while it has fewer than that in hand and the requests beyond wait in
# the listening socket's queue for the first worker with room.
# A kept-alive connection stays with the worker that accepted it for as long as its client
# keeps it busy, and which worker that is, is a race: in the 200-participant bench (one
# connection per participant for the whole run) one worker often held over half of them and
# ran out of its one core while another idled (docs/performance-log.md, "The steady figure's
# spread"). The TLS proxy keeps its own keep-alive with the browsers; nginx's proxy_pass
# opens a connection to gunicorn per request by default anyway, and a proxy that pools them
# (Caddy) opens a new one after each answer. GUNICORN_KEEPALIVE=N keeps idle connections N
# seconds (at most worker_connections - threads a worker; those beyond are closed).
keepalive = _int("GUNICORN_KEEPALIVE", 0)
worker_connections = _int(
    "GUNICORN_WORKER_CONNECTIONS", 1000 if worker_class == ARRIVALS_FIRST else 2 * threads
)

# Each worker is replaced after about this many requests (jittered so that they do not all
# restart at once), which bounds the growth of any slow leak. 0 turns it off.
max_requests = _int("GUNICORN_MAX_REQUESTS", 5000)
max_requests_jitter = _int("GUNICORN_MAX_REQUESTS_JITTER", 500)

# The access log costs a write per request; the TLS proxy usually keeps one. 1 turns it on
# (to stdout).
accesslog = "-" if os.environ.get("GUNICORN_ACCESS_LOG", "0") not in ("", "0") else None
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")

# Worker heartbeats on a memory file system where there is one (a container's /tmp may be
# an overlay on disk, whose stalls would read as a hung worker).
if os.path.isdir("/dev/shm"):
    worker_tmp_dir = "/dev/shm"
