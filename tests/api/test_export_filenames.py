"""The exports name their file through one helper: a split named with a control character
or a quote gives 200 and one safe filename (it gave a 500, or a parameter of its own)."""

from __future__ import annotations

import pytest

from annotations.models import Dataset, Split, TaskKind
from tests.api.test_exports import streamed

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("split", ['de"v', "de\x01v", "de\tv;x=1", "de\x7fv"])
def test_an_export_of_a_split_with_odd_characters_is_200_with_a_safe_filename(api, split):
    dataset = Dataset.objects.create(name="odd", task_kind=TaskKind.PLAUSIBILITY)
    Split.objects.create(dataset=dataset, name=split)
    for url in (
        "/api/v1/exports/ratings.jsonl",
        "/api/v1/exports/ratings.csv",
        "/api/v1/exports/reference.jsonl",
        "/api/v1/exports/ambistory.json",
    ):
        response = api.get(url, {"dataset": "odd", "split": split})
        assert response.status_code == 200, url
        streamed(response)
        value = response["Content-Disposition"]
        assert value.count('"') == 2 and value.count(";") == 1 and value.count("=") == 1
        assert value.startswith('attachment; filename="') and "de_v" in value, value
