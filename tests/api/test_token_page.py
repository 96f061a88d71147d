"""/api/token/: a researcher creates, replaces and revokes the API token."""

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

URL = "/api/token/"


def test_a_researcher_creates_uses_replaces_and_revokes_a_token(researcher_client, researcher):
    page = researcher_client.get(URL)
    assert page.status_code == 200 and b'id="no-token"' in page.content
    assert b'href="/api/token/"' in page.content  # the nav link
    researcher_client.post(URL, {"action": "create"})
    first = Token.objects.get(user=researcher).key
    assert first in researcher_client.get(URL).content.decode()
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {first}")
    assert api.get("/api/v1/datasets/").status_code == 200
    researcher_client.post(URL, {"action": "create"})
    assert Token.objects.get(user=researcher).key != first
    assert api.get("/api/v1/datasets/").status_code == 401  # the old token stopped working
    response = researcher_client.post(URL, {"action": "revoke"})
    assert response.status_code == 302 and not Token.objects.filter(user=researcher).exists()


def test_it_sends_outsiders_and_anonymous_visitors_to_the_login(client, outsider_client):
    for who in (client, outsider_client):
        response = who.post(URL, {"action": "create"})
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    assert not Token.objects.exists()
