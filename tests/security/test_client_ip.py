"""Per-IP limits behind the TLS proxy: with ``TRUSTED_PROXY_HOPS`` the client's address comes
from X-Forwarded-For, read from the right, so participants behind one proxy are not counted
as one client and a client cannot pick its own address by sending the header."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client, RequestFactory

from ambisite.ratelimit import client_ip, login_client_ip
from tests.studies.helpers import open_study, pid
from tests.studies.test_participant_views import arrive_url

PROXY = "172.18.0.1"


@pytest.fixture(autouse=True)
def _fresh_counters():
    cache.clear()
    yield
    cache.clear()


def _request(forwarded: str | None = None):
    extra = {"REMOTE_ADDR": PROXY}
    if forwarded is not None:
        extra["HTTP_X_FORWARDED_FOR"] = forwarded
    return RequestFactory().get("/", **extra)


def test_without_trusted_proxies_the_peer_address_counts_and_the_header_is_ignored(settings):
    settings.TRUSTED_PROXY_HOPS = 0
    assert client_ip(_request("203.0.113.7")) == PROXY
    assert login_client_ip(_request("203.0.113.7")) == PROXY


@pytest.mark.parametrize(
    ("hops", "forwarded", "expected"),
    [
        (1, "203.0.113.7", "203.0.113.7"),
        (1, "6.6.6.6, 203.0.113.7", "203.0.113.7"),  # the client's own entry is ignored
        (1, "  2001:db8::1 ", "2001:db8::1"),
        (2, "6.6.6.6, 203.0.113.7, 10.0.0.2", "203.0.113.7"),
        (1, None, PROXY),  # not through the proxy (a probe): the peer
        (1, "", PROXY),
        (1, "not-an-address", PROXY),
        (2, "203.0.113.7", PROXY),  # shorter than the proxy chain
    ],
)
def test_behind_trusted_proxies_the_address_the_outermost_proxy_saw_counts(
    settings, hops, forwarded, expected
):
    settings.TRUSTED_PROXY_HOPS = hops
    assert client_ip(_request(forwarded)) == expected
    assert login_client_ip(_request(forwarded)) == expected


@pytest.mark.django_db
def test_participants_behind_one_proxy_have_their_own_arrival_limit(settings):
    settings.TRUSTED_PROXY_HOPS = 1
    settings.STUDY_RATE_PER_IP = 2
    study = open_study()
    browser = Client(REMOTE_ADDR=PROXY)
    codes = [
        browser.get(
            arrive_url(study.slug, pid(n)), HTTP_X_FORWARDED_FOR=f"203.0.113.{n}"
        ).status_code
        for n in range(5)
    ]
    assert codes == [200] * 5
    same = [
        browser.get(
            arrive_url(study.slug, pid(9)), HTTP_X_FORWARDED_FOR=f"{n}.{n}.{n}.{n}, 198.51.100.1"
        ).status_code
        for n in range(1, 4)
    ]
    assert same == [200, 200, 429]  # spoofed left entries do not make a new client


@pytest.mark.django_db
def test_a_login_lock_from_one_client_does_not_lock_out_the_others(settings, researcher):
    settings.TRUSTED_PROXY_HOPS = 1
    settings.AXES_FAILURE_LIMIT = 3
    settings.AUTH_CLIENT_FAILURE_LIMIT = 3  # one client trying many usernames
    attacker = Client(REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR="198.51.100.66")
    for n in range(3):
        attacker.post("/accounts/login/", {"username": f"guess{n}", "password": "nope"})
    refused = attacker.post("/accounts/login/", {"username": "rita", "password": "rita-password"})
    assert refused.status_code == 429
    colleague = Client(REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR="203.0.113.5")
    welcome = colleague.post("/accounts/login/", {"username": "rita", "password": "rita-password"})
    assert welcome.status_code == 302
