"""Rows by natural key: found, or bulk-created with ids in the callers' order."""

import pytest

from annotations.models import Homonym
from annotations.natural_keys import get_or_create_many

pytestmark = pytest.mark.django_db


def _homonyms(forms: list[str]) -> tuple[dict, set]:
    return get_or_create_many(
        Homonym, dict.fromkeys((f,) for f in forms), ("form",), lambda k: Homonym(form=k[0])
    )


def test_missing_rows_get_ids_in_the_order_of_the_keys_not_of_the_insert():
    """The insert goes in key order (``zebra`` after ``apple``), the ids follow the file."""
    rows, created = _homonyms(["zebra", "mango", "apple"])
    assert created == {("zebra",), ("mango",), ("apple",)}
    ids = [rows[(form,)].pk for form in ("zebra", "mango", "apple")]
    assert ids == sorted(ids)
    assert Homonym.objects.count() == 3


def test_stored_rows_are_found_and_only_the_new_ones_count_as_created():
    stored = Homonym.objects.create(form="bank")
    rows, created = _homonyms(["pitch", "bank"])
    assert created == {("pitch",)}
    assert rows[("bank",)] == stored
    assert _homonyms(["pitch", "bank"])[1] == set()
    assert Homonym.objects.count() == 2
