"""Request bodies that no view should see: too large to read, or form text that cannot be
stored.

* Size: a request whose Content-Length passes ``REQUEST_MAX_BYTES`` is answered 413 before
  its body is read, so a multipart body of 100 files of 5 MiB is never parsed. A view that
  takes a file upload is marked with :func:`accepts_upload` and gets the upload cap instead
  (``UPLOAD_MAX_BYTES`` plus room for the other form fields). Without a Content-Length (a
  chunked body) the WSGI server hands Django no body at all.
* NUL: PostgreSQL cannot store text holding NUL (the write fails with a server error), and no
  person types one, so a form field (name or value, in an urlencoded or multipart body; the
  files are read by their own parsers) holding NUL is answered 400 naming the field. JSON
  bodies are refused by the API's parser (``annotations.api.parsers``); the path and query
  string by ``RefuseNulMiddleware``. Django's forms refuse NUL too, but views that read
  ``request.POST`` directly would not.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.template.loader import render_to_string

MULTIPART_OVERHEAD = 64 * 1024  # form fields and part headers around an uploaded file
FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def accepts_upload(view: Callable) -> Callable:
    """Mark a view (or a DRF action) that takes a file: its body may reach the upload cap."""
    view.accepts_upload = True  # type: ignore[attr-defined]  # read by body_limit
    return view


def _takes_upload(request: HttpRequest, view_func: Callable) -> bool:
    if getattr(view_func, "accepts_upload", False):
        return True
    # A DRF viewset's route is one function for the class; the action is named per method.
    actions = getattr(view_func, "actions", None) or {}
    name = actions.get((request.method or "").lower(), "")
    handler = getattr(getattr(view_func, "cls", None), name, None)
    return bool(getattr(handler, "accepts_upload", False))


def upload_body_limit() -> int:
    """The most a request carrying one upload may announce: the file's cap and its form."""
    return settings.UPLOAD_MAX_BYTES + MULTIPART_OVERHEAD


def body_limit(request: HttpRequest, view_func: Callable) -> int:
    """The body size this request may announce."""
    if _takes_upload(request, view_func):
        return max(upload_body_limit(), settings.REQUEST_MAX_BYTES)
    return settings.REQUEST_MAX_BYTES


def announced_length(request: HttpRequest) -> int:
    try:
        return max(int(request.META.get("CONTENT_LENGTH") or 0), 0)
    except ValueError:
        return 0


def nul_field(request: HttpRequest) -> str | None:
    """The name of the first form field whose name or value holds NUL, or None."""
    for name, values in request.POST.lists():
        if "\x00" in name or any("\x00" in value for value in values):
            return name.replace("\x00", "\\x00")[:60]
    return None


def refusal(request: HttpRequest, status: int, title: str, text: str) -> HttpResponse:
    """A short page (or JSON under /api/) that names the problem; no session, no database."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": text}, status=status)
    html = render_to_string("errors/refused.html", {"title": title, "text": text})
    return HttpResponse(html, status=status)


class RequestBodyMiddleware:
    """Refuses an over-large body (413) and NUL in form fields (400) before the view runs.
    It sits before the CSRF middleware, which reads ``request.POST`` itself."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        limit = body_limit(request, view_func)
        if announced_length(request) > limit:
            text = f"The request is larger than the limit of {limit} bytes; nothing was stored."
            return refusal(request, 413, "Too large", text)
        if request.method != "POST" or request.content_type not in FORM_TYPES:
            return None
        try:
            field = nul_field(request)
        except MultiPartParserError as exc:
            return refusal(request, 400, "Unreadable form", f"The form could not be read: {exc}")
        if field is not None:
            text = (
                f"The field {field!r} holds a NUL character, which cannot be stored. "
                "Please go back, remove it and send the form again."
            )
            return refusal(request, 400, "A character that cannot be stored", text)
        return None
