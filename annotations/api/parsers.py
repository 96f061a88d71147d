"""The API's JSON parser: DRF's, reading through :mod:`annotations.safe_input`, so a request
body with 100k-deep nesting, a number beyond a double, a key twice or NUL text is a 400
("JSON parse error - ...") instead of a server error."""

from __future__ import annotations

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from annotations.safe_input import InputError, loads


class SafeJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        data = stream.read(limit + 1) if stream is not None else b""
        try:
            return loads(data, max_bytes=limit)
        except InputError as error:
            raise ParseError(f"JSON parse error - {error}") from None
