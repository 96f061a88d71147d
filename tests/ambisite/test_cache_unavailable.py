"""With Redis as the cache (CACHE_URL=redis://...), a Redis outage is a 503 "try again" page
on arrivals, login, researcher pages and the API, never a 500, and ``/healthz`` says which
component fails. The outage is a CACHE_URL on a closed local port (the shared Redis is never
stopped)."""

from __future__ import annotations

import socket

import pytest
from django.core.cache import caches
from django.test import Client

from tests.studies.helpers import open_study
from tests.studies.test_participant_views import arrive_url

pytestmark = pytest.mark.django_db


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # closed again when the block ends: nothing listens


@pytest.fixture
def redis_down(settings):
    """The settings CACHE_URL=redis://127.0.0.1:<closed port>/7 gives."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{closed_port()}/7",
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }
    yield
    caches["default"].close()


def assert_try_again(response) -> None:
    assert response.status_code == 503, response.status_code
    assert response["Retry-After"] == "30"
    assert "Please try again in a moment" in response.content.decode()


def test_healthz_names_the_cache_when_redis_is_down(client, redis_down):
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.content.decode() == "cache unavailable\n"


def test_healthz_is_ok_when_the_cache_answers(client):
    response = client.get("/healthz")
    assert response.status_code == 200 and response.content == b"ok\n"


def test_an_arrival_is_a_503_page(redis_down):
    study = open_study()
    client = Client(raise_request_exception=False)
    assert_try_again(client.get(arrive_url(study.slug)))


def test_a_login_is_a_503_page(researcher, redis_down):
    client = Client(raise_request_exception=False)
    response = client.post(
        "/accounts/login/", {"username": researcher.username, "password": "rita-password"}
    )
    assert_try_again(response)


def test_a_researcher_page_is_a_503_page(researcher, settings):
    client = Client(raise_request_exception=False)
    client.force_login(researcher)
    assert client.get("/studies/").status_code == 200
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{closed_port()}/7",
        }
    }
    assert_try_again(client.get("/studies/"))


def test_the_api_gets_json_naming_the_cache(researcher, redis_down):
    from rest_framework.authtoken.models import Token

    client = Client(raise_request_exception=False)
    token = Token.objects.create(user=researcher).key
    response = client.get("/api/v1/studies/", HTTP_AUTHORIZATION=f"Token {token}")
    assert response.status_code == 503
    assert response.json()["detail"].startswith("The cache is briefly unavailable")
