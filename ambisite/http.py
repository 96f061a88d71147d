"""HTTP helpers shared by every app's views."""

from __future__ import annotations

import re

from django.utils.http import content_disposition_header

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
MAX_FILENAME = 120


def attachment(filename: str) -> str:
    """A ``Content-Disposition`` value that offers ``filename`` as a download. Every part
    outside ``A-Z a-z 0-9 . _ -`` becomes ``_``: a control character in a name taken from
    the request (a split, a slug) can then neither break the header (Django refuses a
    newline with a 500) nor, with a quote or a semicolon, add a parameter of its own."""
    safe = _UNSAFE.sub("_", filename).strip("._")[:MAX_FILENAME] or "download"
    return content_disposition_header(True, safe) or f'attachment; filename="{safe}"'
