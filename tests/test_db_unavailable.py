"""A lost database connection is a 503 "try again" page (site style, Retry-After), not a 500.

The real outage (PostgreSQL stopped under gunicorn) is in tests/faults/test_postgres_restart.py.
"""

from __future__ import annotations

import json
import sys

import pytest
from django.db import InterfaceError, OperationalError
from django.test import RequestFactory

from ambisite.errors import server_error
from ambisite.middleware import DatabaseUnavailableMiddleware


def _middleware():
    return DatabaseUnavailableMiddleware(lambda request: None)


@pytest.mark.parametrize("error", [OperationalError, InterfaceError])
def test_a_view_losing_the_database_answers_503_in_the_site_style(error):
    request = RequestFactory().post("/s/demo/rate/3/")
    response = _middleware().process_exception(request, error("connection refused"))
    assert response.status_code == 503
    assert response["Retry-After"] == "30"
    assert response["Cache-Control"] == "no-store"
    html = response.content.decode()
    assert "Please try again in a moment" in html
    assert "css/site.css" in html and 'href="/s/demo/rate/3/"' in html
    assert "Traceback" not in html and "connection refused" not in html


def test_the_api_gets_json():
    request = RequestFactory().get("/api/v1/studies/")
    response = _middleware().process_exception(request, OperationalError("down"))
    assert response.status_code == 503
    assert response["Content-Type"] == "application/json"
    assert json.loads(response.content)["detail"].startswith("The database is briefly unavailable")


def test_other_errors_are_left_to_the_500_handler():
    request = RequestFactory().get("/")
    assert _middleware().process_exception(request, ValueError("bug")) is None


def test_the_500_handler_answers_503_when_a_middleware_lost_the_database():
    request = RequestFactory().get("/s/demo/welcome/")
    try:
        raise OperationalError("server closed the connection unexpectedly")
    except OperationalError:
        assert sys.exc_info()[0] is OperationalError
        response = server_error(request)
    assert response.status_code == 503 and response["Retry-After"] == "30"
    try:
        raise ValueError("bug")
    except ValueError:
        response = server_error(request)
    assert response.status_code == 500
