"""Hostile pool files on the pool page: each is refused on the form naming the problem,
nothing is imported, never a server error."""

from __future__ import annotations

import html
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotations.models import Homonym
from writing.importers import PoolFormatError, parse_pool
from writing.models import SensePair

ENTRY = {"word": "bank", "meaning_1": "money", "meaning_2": "river", "pos_1": "noun"}

HOSTILE = {
    "deep-nesting": (b"[" * 100_000 + b"]" * 100_000, "nested deeper"),
    "huge-number": (b'[{"word": 1e400}]', "range of a double"),
    "huge-integer": (b'[{"word": ' + b"9" * 5000 + b"}]", "digits"),
    "duplicate-key": (b'[{"word": "a", "word": "b"}]', "'word' appears twice"),
    "nul-json": (json.dumps([ENTRY | {"meaning_1": "mo\x00ney"}]).encode(), "NUL"),
    "nul-tsv": (b"word\tmeaning_1\tmeaning_2\nba\x00nk\tmoney\triver\n", "NUL"),
    "non-utf8": (b"word\tmeaning_1\tmeaning_2\nb\xe4nk\tmoney\triver\n", "not UTF-8"),
    "long-word": (json.dumps([ENTRY | {"word": "w" * 200_000}]).encode(), "word is 200000"),
    "long-pos": (json.dumps([ENTRY | {"pos_1": "n" * 21}]).encode(), "pos_1 is 21 characters"),
    "long-meaning": (json.dumps([ENTRY | {"meaning_2": "r" * 501}]).encode(), "meaning_2 is 501"),
    "tsv-field-over-csv-limit": (
        b"word\tmeaning_1\tmeaning_2\nbank\t" + b"m" * 200_000 + b"\triver\n",
        "line 2: field larger",
    ),
}


@pytest.mark.parametrize("case", HOSTILE, ids=list(HOSTILE))
def test_the_parser_refuses_each_hostile_file_naming_the_problem(case):
    content, expected = HOSTILE[case]
    with pytest.raises(PoolFormatError) as raised:
        parse_pool(content)
    assert expected in str(raised.value) and len(str(raised.value)) < 300


@pytest.mark.django_db
@pytest.mark.parametrize("case", HOSTILE, ids=list(HOSTILE))
def test_the_pool_page_shows_the_problem_on_the_form_and_imports_nothing(case, client, researcher):
    content, expected = HOSTILE[case]
    client.force_login(researcher)
    upload = SimpleUploadedFile("pool.json", content)
    page = client.post(reverse("writing:pool_import"), {"file": upload})
    assert page.status_code == 200
    text = html.unescape(page.content.decode())
    assert "Nothing was imported" in text and expected in text
    assert not SensePair.objects.exists() and not Homonym.objects.exists()


@pytest.mark.django_db
def test_a_good_file_still_imports(client, researcher):
    client.force_login(researcher)
    upload = SimpleUploadedFile("pool.json", json.dumps([ENTRY]).encode())
    client.post(reverse("writing:pool_import"), {"file": upload})
    assert SensePair.objects.get().homonym.form == "bank"
