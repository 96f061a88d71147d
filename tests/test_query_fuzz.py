"""Every researcher page and API operation, requested by a researcher with random query
strings (hypothesis): numbers beyond any range, non-ASCII digits, NUL, empty and repeated
parameters. No answer may be a server error.

The URLs and their parameters come from the access matrix (tests/test_access_matrix.py), so a
new URL is fuzzed as soon as it has a rule there.
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.test_access_matrix import all_routes, url_of
from tests.test_access_matrix import world as world  # noqa: F401  (the fixture)

pytestmark = [pytest.mark.property, pytest.mark.django_db]

# Every name the views and filters read from the query string, plus a stranger.
NAMES = [
    "a", "b", "boot", "seed", "page", "page_size", "sort", "run", "split", "sample", "ratings",
    "include_excluded", "dataset", "homonym", "sense", "ending", "study", "setup", "has_ending",
    "rater", "rater_kind", "status", "backend", "format", "q", "cursor", "zzz",
]  # fmt: skip
VALUES = st.one_of(
    st.sampled_from(
        [
            "", "abc", "-1", "0", "1", "1.5", "1e400", "9" * 30, "9" * 5000, "²", "١", "%00",
            "\x00", "NaN", "true", "null", "[]", "{}", "2026-13-45", "../..", "' OR 1=1",
        ]
    ),
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.text(max_size=12),
)  # fmt: skip
QUERIES = st.lists(st.tuples(st.sampled_from(NAMES), VALUES), min_size=1, max_size=4)


def _targets(objects) -> list[str]:
    urls = []
    for route in all_routes():
        if route.name.startswith(("admin:", "participate:")) or route.name in ("login", "logout"):
            continue
        urls.append(url_of(route, objects))
    return urls


# The URLs in PARTS slices, one test each, so that pytest-xdist spreads the fuzzing over its
# processes (as one test it took 133 s of a loaded full run in one process).
# Each URL still gets 25 query strings, fixed from run to run (derandomize); hypothesis seeds
# each slice apart, so the four slices try different ones (100 in all, 25 before).
PARTS = 4


@pytest.mark.parametrize("part", range(PARTS))
@settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
@given(query=QUERIES)
def test_no_researcher_page_or_api_call_fails_on_any_query_string(part, query, world):  # noqa: F811
    staff = world["clients"]["staff"]
    for url in _targets(world)[part::PARTS]:
        response = staff.get(f"{url}?{urlencode(query)}")
        assert response.status_code < 500, (url, query, response.status_code)
