"""The site's icon: linked from every page and served at /favicon.ico (no 404 per page)."""

from __future__ import annotations

import pytest
from django.contrib.staticfiles import finders
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_it_serves_an_icon_at_favicon_ico_to_anyone(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 200 and response["Content-Type"] == "image/x-icon"
    body = b"".join(response.streaming_content)
    assert body[:4] == b"\0\0\1\0" and len(body) > 1000  # an ICO header, one 32x32 image
    assert "max-age" in response["Cache-Control"]
    assert client.head("/favicon.ico").status_code == 200
    assert client.post("/favicon.ico").status_code == 405


@pytest.mark.parametrize("name", ["login", "runs:list", "dashboards:agreement"])
def test_every_page_links_the_svg_icon(researcher_client, name):
    page = researcher_client.get(reverse(name)).content.decode()
    assert '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">' in page
    assert finders.find("favicon.svg") and finders.find("favicon.ico")


def test_the_error_pages_link_it_too(client):
    page = client.get("/no-such-page/").content.decode()
    assert "favicon.svg" in page
