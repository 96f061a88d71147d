"""/api/v1/setups/."""

import pytest

from tests.api.conftest import assert_refused

pytestmark = pytest.mark.django_db


def test_it_lists_setups_with_their_endings_and_filters_by_homonym(api, small_split):
    body = api.get("/api/v1/setups/").json()
    assert body["count"] == 2
    bat = api.get("/api/v1/setups/", {"homonym": "bat"}).json()["results"]
    assert len(bat) == 1 and bat[0]["homonym"] == "bat"
    assert bat[0]["sentence"] == "He stopped at the bat."
    assert sorted(bat[0]["endings"])[0] == ""  # the open-ended story
    assert len(bat[0]["endings"]) == 3
    assert api.get(f"/api/v1/setups/{bat[0]['id']}/").json()["id"] == bat[0]["id"]


def test_it_gives_non_researchers_nothing(non_researchers, small_split):
    for _, client, status in non_researchers:
        assert_refused(client.get("/api/v1/setups/"), status)
        assert_refused(client.get("/api/v1/setups/1/"), status)
