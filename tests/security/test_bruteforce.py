"""Brute-force limits: login forms (django-axes), token creation and token authentication."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from rest_framework.authtoken.models import Token

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_counters():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def limits(settings):
    settings.AXES_FAILURE_LIMIT = 3
    settings.TOKEN_CREATE_RATE = 2
    settings.TOKEN_FAILURE_RATE = 3
    return settings


@pytest.mark.parametrize("url", ["/accounts/login/", "/admin/login/"])
def test_the_login_forms_lock_out_after_the_failure_limit(client, researcher, limits, url):
    for _ in range(limits.AXES_FAILURE_LIMIT - 1):
        wrong = client.post(url, {"username": "rita", "password": "nope"})
        assert wrong.status_code == 200  # the form again, with its error
    refused = client.post(url, {"username": "rita", "password": "nope"})
    assert refused.status_code == 429
    # Locked: the right password is refused too, until the cool-off (AUTH_COOLOFF_MINUTES).
    right = client.post(url, {"username": "rita", "password": "rita-password"})
    assert right.status_code == 429
    body = right.content.decode()
    assert "Too many attempts" in body and "Please wait 15 minutes" in body
    assert "Traceback" not in body and "axes" not in body.lower()
    assert "_auth_user_id" not in client.session


def test_the_lock_is_per_account_across_ips(client, researcher, limits):
    for n in range(limits.AXES_FAILURE_LIMIT):
        client.post(
            "/accounts/login/",
            {"username": "rita", "password": "nope"},
            REMOTE_ADDR=f"10.0.0.{n + 1}",
        )
    refused = client.post(
        "/accounts/login/",
        {"username": "rita", "password": "rita-password"},
        REMOTE_ADDR="10.9.9.9",
    )
    assert refused.status_code == 429


def test_a_success_before_the_limit_resets_the_count(client, researcher, limits):
    for _ in range(limits.AXES_FAILURE_LIMIT - 1):
        client.post("/accounts/login/", {"username": "rita", "password": "nope"})
    ok = client.post("/accounts/login/", {"username": "rita", "password": "rita-password"})
    assert ok.status_code == 302


def test_token_creation_is_limited_per_account(researcher_client, limits):
    codes = [researcher_client.post("/api/token/").status_code for _ in range(3)]
    assert codes == [302, 302, 429]
    assert "Too many attempts" in researcher_client.post("/api/token/").content.decode()


def test_failed_token_authentication_is_throttled_per_ip(client, researcher, limits):
    good = Token.objects.create(user=researcher).key
    for _ in range(limits.TOKEN_FAILURE_RATE):
        bad = client.get("/api/v1/setups/", HTTP_AUTHORIZATION="Token " + "0" * 40)
        assert bad.status_code == 401
    assert client.get("/api/v1/setups/", HTTP_AUTHORIZATION="Token " + "1" * 40).status_code == 429
    # Past the limit the right token from that IP is refused too, until the minute is over.
    refused = client.get("/api/v1/setups/", HTTP_AUTHORIZATION="Token " + good)
    assert refused.status_code == 429 and "Retry-After" in refused.headers
    other_ip = client.get(
        "/api/v1/setups/", HTTP_AUTHORIZATION="Token " + good, REMOTE_ADDR="10.1.2.3"
    )
    assert other_ip.status_code == 200
