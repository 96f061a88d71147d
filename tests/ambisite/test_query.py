"""ambisite/query.py's bounded-int reader and ambisite/env.py's environment reader: the one
rule each for whole numbers from forms and from the environment."""

from __future__ import annotations

import pytest

from ambisite.env import env_int
from ambisite.query import MAX_ID, bounded_int


@pytest.mark.parametrize(
    ("value", "expected"),
    [("7", 7), (" 7 ", 7), (7, 7), (None, 3), ("", 3), ("x", 3), ("1.5", 3), ("-4", 0)],
)
def test_a_value_reads_as_a_whole_number_or_the_default(value, expected):
    assert bounded_int(value, 3) == expected


def test_a_value_is_held_within_its_bounds_so_the_database_never_overflows():
    assert bounded_int("9" * 40, 0) == MAX_ID
    assert bounded_int("5000000", 1000, 10, 5000) == 5000
    assert bounded_int("2", 1000, 10, 5000) == 10


def test_the_environment_reader_takes_blank_as_the_default_and_stops_on_a_bad_number(
    monkeypatch,
):
    monkeypatch.setenv("AMB_TEST_N", " ")
    assert env_int("AMB_TEST_N", 4) == 4
    monkeypatch.setenv("AMB_TEST_N", "12")
    assert env_int("AMB_TEST_N", 4) == 12
    monkeypatch.setenv("AMB_TEST_N", "twelve")
    with pytest.raises(SystemExit, match="AMB_TEST_N='twelve' is not an integer"):
        env_int("AMB_TEST_N", 4, SystemExit)
