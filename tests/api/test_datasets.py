"""/api/v1/datasets/: datasets with their splits."""

import pytest

from tests.api.conftest import assert_refused

pytestmark = pytest.mark.django_db


def test_it_lists_datasets_with_splits_and_sample_counts(api, small_split):
    response = api.get("/api/v1/datasets/")
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 1
    dataset = body["results"][0]
    assert dataset["name"] == "ambistory"
    assert dataset["splits"] == [
        {"id": small_split.pk, "dataset": "ambistory", "name": "dev", "n_samples": 12}
    ]
    detail = api.get(f"/api/v1/datasets/{dataset['id']}/")
    assert detail.status_code == 200 and detail.json()["name"] == "ambistory"
    assert api.get("/api/v1/datasets/999999/").status_code == 404


def test_it_gives_non_researchers_nothing(non_researchers, small_split):
    for _, client, status in non_researchers:
        assert_refused(client.get("/api/v1/datasets/"), status)
        assert_refused(client.get(f"/api/v1/datasets/{small_split.dataset_id}/"), status)
