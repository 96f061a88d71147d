"""The site's own 404, 403, 500 and 429 pages, as production (DEBUG off) serves them."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_404_page_is_the_sites_and_names_a_next_step(client, settings):
    settings.DEBUG = False
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    body = response.content.decode()
    assert "Page not found" in body and 'href="/"' in body and "site.css" in body
    assert "urlpatterns" not in body and "Traceback" not in body


def test_403_page_on_a_csrf_failure(settings, researcher):
    settings.DEBUG = False
    client = Client(enforce_csrf_checks=True)
    client.force_login(researcher)
    response = client.post("/api/token/")
    assert response.status_code == 403
    body = response.content.decode()
    assert "You may not open this page" in body and "reload the page" in body
    assert "CSRF" not in body


def test_500_page_shows_no_internals(settings):
    settings.DEBUG = False
    from django.urls import path

    def boom(request):
        raise RuntimeError("secret internal detail")

    import types

    urls = types.ModuleType("boom_urls")
    urls.urlpatterns = [path("boom/", boom)]
    settings.ROOT_URLCONF = urls
    client = Client(raise_request_exception=False)
    response = client.get("/boom/")
    assert response.status_code == 500
    body = response.content.decode()
    assert "Something went wrong on our side" in body and "try again" in body
    assert "secret internal detail" not in body and "RuntimeError" not in body
