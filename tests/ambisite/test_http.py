"""Content-Disposition built by one helper: a control character or a quote in a name taken
from the request never gives a 500 or adds a parameter of its own."""

from __future__ import annotations

import pytest
from django.http import HttpResponse

from ambisite.http import attachment


@pytest.mark.parametrize(
    "name, expected",
    [
        ("dev_solution.jsonl", 'attachment; filename="dev_solution.jsonl"'),
        ('de"v; filename=evil.exe', 'attachment; filename="de_v_filename_evil.exe"'),
        ("dev\r\nSet-Cookie: x=1.json", 'attachment; filename="dev_Set-Cookie_x_1.json"'),
        ("..\x01\x7f", 'attachment; filename="download"'),
        ("bánk.json", 'attachment; filename="b_nk.json"'),
    ],
)
def test_the_header_value_holds_one_quoted_safe_filename(name, expected):
    value = attachment(name)
    assert value == expected
    HttpResponse()["Content-Disposition"] = value  # Django accepts it (no BadHeaderError)
