"""Brute-force limits: login forms (django-axes), token creation and token authentication."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client
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


def login(client, password: str, ip: str, username: str = "rita"):
    return client.post(
        "/accounts/login/", {"username": username, "password": password}, REMOTE_ADDR=ip
    )


def test_a_lock_from_one_client_leaves_the_user_free_to_log_in_from_another(
    client, researcher, limits
):
    for _ in range(limits.AXES_FAILURE_LIMIT):
        login(client, "nope", "10.0.0.66")
    assert login(client, "rita-password", "10.0.0.66").status_code == 429  # that client: locked
    other = Client()
    welcome = login(other, "rita-password", "10.9.9.9")
    assert welcome.status_code == 302 and other.session["_auth_user_id"] == str(researcher.pk)


def test_one_username_from_many_clients_locks_at_the_higher_limit(client, researcher, limits):
    limits.AUTH_USERNAME_FAILURE_LIMIT = 7
    ips = [f"10.0.0.{n}" for n in range(1, 10)]
    # under the per-client limit on each of three clients: 6 failures, not locked
    for ip in ips[:3]:
        for _ in range(limits.AXES_FAILURE_LIMIT - 1):
            assert login(client, "nope", ip).status_code == 200
    assert login(Client(), "rita-password", ips[8]).status_code == 302
    for ip in ips[:3]:  # that login reset the pair (10.0.0.9, rita) only
        for _ in range(limits.AXES_FAILURE_LIMIT - 1):
            login(client, "nope", ip)
    # 12 failures >= 7 from any clients: the username is locked everywhere, for everyone
    assert login(Client(), "rita-password", ips[7]).status_code == 429


def test_one_client_trying_many_usernames_locks_at_the_client_limit(client, researcher, limits):
    limits.AUTH_CLIENT_FAILURE_LIMIT = 4
    for n in range(limits.AUTH_CLIENT_FAILURE_LIMIT):
        login(client, "nope", "10.0.0.66", username=f"guess{n}")
    assert login(client, "rita-password", "10.0.0.66").status_code == 429
    assert login(Client(), "rita-password", "10.0.0.67").status_code == 302


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
