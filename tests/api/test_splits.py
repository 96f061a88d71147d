"""/api/v1/splits/."""

import pytest

from tests.api.conftest import assert_refused

pytestmark = pytest.mark.django_db


def test_it_lists_splits_filtered_by_dataset(api, small_split):
    body = api.get("/api/v1/splits/", {"dataset": "ambistory"}).json()
    assert [(s["name"], s["n_samples"]) for s in body["results"]] == [("dev", 12)]
    assert api.get("/api/v1/splits/", {"dataset": "other"}).json()["count"] == 0
    assert api.get(f"/api/v1/splits/{small_split.pk}/").json()["name"] == "dev"


def test_it_gives_non_researchers_nothing(non_researchers, small_split):
    for _, client, status in non_researchers:
        assert_refused(client.get("/api/v1/splits/"), status)
        assert_refused(client.get(f"/api/v1/splits/{small_split.pk}/"), status)
