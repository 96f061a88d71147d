from __future__ import annotations

import pytest

from .stack import PrivatePostgres, PrivateRedis


@pytest.fixture
def postgres():
    """A private PostgreSQL cluster with an empty ``ambisite_faults`` database; removed after."""
    pg = PrivatePostgres()
    try:
        pg.start()
        pg.create_db()
        yield pg
    finally:
        pg.destroy()


@pytest.fixture
def redis():
    """A private redis-server (own port, no persistence); killed after."""
    server = PrivateRedis()
    try:
        server.start()
        yield server
    finally:
        server.kill()
