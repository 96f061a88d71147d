"""The prediction-vs-human scatter counts and draws the filtered samples only."""

from __future__ import annotations

import pytest

from dashboards import charts
from tests.dashboards.helpers import import_run, import_setups

pytestmark = pytest.mark.django_db


def test_the_scatter_spreads_its_points_over_the_filtered_samples(researcher_client, monkeypatch):
    """Two homonyms, 12 predicted samples; the filter keeps word1's 6. With at most 4 points
    the spread was taken over all 12 predictions before the filter (2 of word1's 6 drawn,
    "of the run's 12 predictions"); it is taken over the 6 the filter keeps."""
    split = import_setups(2, split="scatter")
    run = import_run(split, "r")
    monkeypatch.setattr(charts, "MAX_POINTS", 4)
    url = f"/dashboards/charts/model-vs-human.json?run={run.pk}&homonym=word1"
    found = researcher_client.get(url).json()
    assert found["n"] == 6
    assert len(found["points"]) == 6
