"""The request-body middleware: an over-large body is refused with 413 before it is read
(the upload views get their own larger cap), and NUL in any form field is a 400 naming the
field, on every page, before the view runs."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import RequestFactory
from django.urls import reverse

from ambisite.request_body import RequestBodyMiddleware, body_limit
from predictions.web.upload_views import predictions_upload
from writing.researcher_views import pool_import

pytestmark = pytest.mark.django_db

MIB = 1024 * 1024
HUNDRED_FILES = str(100 * 5 * MIB + 100 * 300)  # 100 files of 5 MiB and their part headers


class Unreadable:
    """A body that fails the test if anything reads it."""

    def read(self, *args):
        raise AssertionError("the body was read")

    readline = read


def post_unread(path: str, content_length: str, content_type: str) -> RequestFactory:
    request = RequestFactory().generic("POST", path, b"", content_type=content_type)
    request.META["CONTENT_LENGTH"] = content_length
    request.META["wsgi.input"] = Unreadable()
    request._stream = Unreadable()
    return request


@pytest.mark.parametrize("path", ["/api/upload/", "/api/v1/runs/upload/", "/writing/pool/import/"])
def test_a_hundred_files_of_5_mib_are_refused_unread_even_where_uploads_go(path, client):
    from django.urls import resolve

    request = post_unread(path, HUNDRED_FILES, "multipart/form-data; boundary=x")
    match = resolve(path)
    response = RequestBodyMiddleware(lambda r: None).process_view(
        request, match.func, match.args, match.kwargs
    )
    assert response is not None and response.status_code == 413
    assert "larger than the limit" in response.content.decode()


def test_the_whole_stack_answers_413_to_a_large_body_on_any_page(client, researcher_client):
    big = {"CONTENT_LENGTH": HUNDRED_FILES, "CONTENT_TYPE": "multipart/form-data; boundary=x"}
    for c, path in ((client, "/accounts/login/"), (researcher_client, "/writing/pool/import/")):
        response = c.generic("POST", path, b"", **big)
        assert response.status_code == 413, path
    api = client.generic("POST", "/api/v1/runs/upload/", b"", **big)
    assert api.status_code == 413 and "larger than the limit" in api.json()["detail"]


def test_a_page_without_uploads_has_the_small_cap_and_upload_views_the_large_one(settings):
    settings.REQUEST_MAX_BYTES = 1000
    settings.UPLOAD_MAX_BYTES = 5 * MIB
    request = RequestFactory().post("/accounts/login/")
    assert body_limit(request, lambda r: None) == 1000
    assert body_limit(request, predictions_upload) > 5 * MIB
    assert body_limit(request, pool_import) > 5 * MIB


def test_a_form_just_over_the_request_cap_is_refused_and_one_under_it_is_not(client, settings):
    settings.REQUEST_MAX_BYTES = 2000
    over = client.post("/accounts/login/", {"username": "x" * 3000, "password": "p"})
    assert over.status_code == 413
    under = client.post("/accounts/login/", {"username": "x" * 100, "password": "p"})
    assert under.status_code == 200


def test_several_files_under_the_file_cap_but_over_the_request_cap_are_refused(
    researcher_client, settings
):
    settings.UPLOAD_MAX_BYTES = 100_000
    settings.REQUEST_MAX_BYTES = 1000
    files = {f"file{n}": SimpleUploadedFile(f"{n}.json", b"x" * 90_000) for n in range(3)}
    response = researcher_client.post(reverse("writing:pool_import"), files)
    assert response.status_code == 413


def test_more_files_than_any_form_takes_are_a_400(researcher_client):
    files = {f"file{n}": SimpleUploadedFile(f"{n}.json", b"[]") for n in range(20)}
    response = researcher_client.post(reverse("writing:pool_import"), files)
    assert response.status_code == 400


@pytest.mark.parametrize("multipart", [False, True])
def test_nul_in_a_form_field_is_a_400_naming_it(client, multipart):
    data = {"username": "lab\x00", "password": "p"}
    if multipart:
        response = client.post("/accounts/login/", data)
    else:
        body = "username=lab%00&password=p"
        response = client.post(
            "/accounts/login/", body, content_type="application/x-www-form-urlencoded"
        )
    assert response.status_code == 400
    assert "&#x27;username&#x27; holds a NUL character" in response.content.decode()


def test_nul_in_a_field_name_is_refused_too(client):
    body = "user%00name=lab&password=p"
    response = client.post(
        "/accounts/login/", body, content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 400


def test_a_broken_multipart_body_is_a_400_not_a_500(client):
    body = b'--x\r\nContent-Disposition: form-data; name="a"\r\n\r\nvalue'  # never closed
    response = client.generic(
        "POST", "/accounts/login/", body, content_type="multipart/form-data; boundary=x"
    )
    assert response.status_code < 500
