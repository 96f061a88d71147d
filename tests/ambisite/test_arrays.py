"""ambisite/arrays.py: a values_list queryset as one numpy array, the same on every database.

On PostgreSQL (CI) flat_array reads binary columns and is compared with the portable
fetchall path on the same connection; on SQLite the portable path is the one under test."""

import numpy as np
import pytest
from django.db import connection

from ambisite.arrays import _fetched_columns, flat_array
from annotations.models import Rating, Sample
from tests.predictions.runhelpers import small_split

pytestmark = pytest.mark.django_db


def portable(qs, n_columns, dtype=np.int64):
    sql, params = qs.query.get_compiler(using=qs.db).as_sql()
    return _fetched_columns(connection, sql, params, n_columns, np.dtype(dtype))


def test_integer_columns_come_back_as_the_rows_of_the_query():
    small_split()
    qs = Rating.objects.order_by("id").values_list("sample_id", "rater_id", "score")
    arr = flat_array(qs, 3)
    assert arr.dtype == np.int64 and arr.shape == (qs.count(), 3)
    assert arr.tolist() == [list(row) for row in qs]
    assert np.array_equal(arr, portable(qs, 3))


def test_float_columns_keep_every_bit_and_null_is_nan():
    split = small_split()
    first = Sample.objects.filter(split=split).order_by("position").first()
    Rating.objects.filter(sample=first).delete()  # its mean becomes NULL
    qs = Sample.objects.filter(split=split).with_stats().order_by("id").values_list("id", "mean")
    arr = flat_array(qs, 2, dtype=float)
    expected = [(pk, np.nan if mean is None else float(mean)) for pk, mean in qs]
    assert np.isnan(arr[0, 1]) and expected[0][1] is np.nan
    assert arr[1:].tolist() == [list(row) for row in expected[1:]]
    assert np.array_equal(arr, portable(qs, 2, float), equal_nan=True)


def test_an_empty_or_impossible_query_gives_an_empty_array_of_the_right_width():
    assert flat_array(Rating.objects.values_list("id", "score"), 2).shape == (0, 2)
    none = Rating.objects.filter(id__in=[]).values_list("id", "score")  # EmptyResultSet
    assert flat_array(none, 2, dtype=float).shape == (0, 2)
