"""/api/v1/predictions/."""

import pytest

from tests.api.conftest import assert_refused

pytestmark = pytest.mark.django_db


def test_it_lists_predictions_filtered_by_run(api, uploaded_run):
    body = api.get("/api/v1/predictions/", {"run": uploaded_run.pk}).json()
    assert body["count"] == 12
    first = body["results"][0]
    assert (first["dataset_id"], first["score"], first["raw_output"]) == ("0", 3.5, "3.5")
    assert api.get("/api/v1/predictions/", {"run": uploaded_run.pk + 1}).json()["count"] == 0
    assert api.get(f"/api/v1/predictions/{first['id']}/").json()["run"] == uploaded_run.pk


def test_it_gives_non_researchers_nothing(non_researchers, uploaded_run):
    prediction = uploaded_run.predictions.first()
    for _, client, status in non_researchers:
        assert_refused(client.get("/api/v1/predictions/"), status)
        assert_refused(client.get(f"/api/v1/predictions/{prediction.pk}/"), status)
