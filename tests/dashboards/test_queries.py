"""Every dashboard page and JSON endpoint makes the same number of queries at any size."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotations.models import Sample
from annotations.services import rater_exclude
from tests.dashboards.helpers import DASHBOARD_URLS, import_run, import_setups, study_ratings

pytestmark = pytest.mark.django_db


def build(n_setups: int, n_runs: int, n_raters: int):
    split = import_setups(n_setups, split=f"size{n_setups}", prefix=f"w{n_setups}-")
    for k in range(n_runs):
        import_run(split, f"run{k}", value=lambda i, k=k: 1 + (i + k) % 5)
    n = Sample.objects.filter(split=split).count()
    raters = study_ratings(
        split, {f"p{n_setups}-{r}": [1 + (i * r) % 5 for i in range(n)] for r in range(n_raters)}
    )
    rater_exclude(rater=raters[0], source="manual", reason="test")
    return split


def counts(client, split) -> dict[str, int]:
    setup = Sample.objects.filter(split=split).first().story.setup_id
    runs = list(split.model_runs.values_list("id", flat=True))
    urls = {url: url for url in DASHBOARD_URLS}
    urls.update(
        {
            "setup": f"/dashboards/setups/{setup}/",
            "setup histograms": f"/dashboards/charts/setup-histograms.json?setup={setup}",
            "scatter": f"/dashboards/charts/model-vs-human.json?run={runs[0]}",
            "items by error": f"/dashboards/items/?sort=error&run={runs[0]}",
            "paired": f"/dashboards/leaderboard/?a={runs[0]}&b={runs[-1]}",
            "agreement, all raters": "/dashboards/?include_excluded=on",
            "agreement of a split": f"/dashboards/?split={split.id}",
            "intervals of a split": f"/dashboards/agreement.json?split={split.id}&boot=20",
        }
    )
    out = {}
    for label, url in urls.items():
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url).status_code == 200, url
        out[label] = len(queries)
    return out


def test_query_counts_do_not_grow_with_the_data(researcher_client, django_user_model):
    small = counts(researcher_client, build(1, 1, 2))
    big = counts(researcher_client, build(8, 3, 5))  # 8x the samples, 3x the runs
    assert big == small
    assert max(small.values()) <= 14
