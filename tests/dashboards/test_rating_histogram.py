"""The ratings histogram reads scores on the task kind's own scale: RAW-C relatedness is
0-4 (a 0 is a 0, not a 5), with one series and a caption about sentence pairs."""

from __future__ import annotations

import pytest
from django.http import QueryDict

from annotations.models import Rating, Split
from annotations.rawc import RawcData, load_rawc, rawc_import
from dashboards.charts import CHARTS, kind_scale, score_histogram
from tests.dashboards.helpers import import_setups
from tests.studies.kinds_helpers import DATA


@pytest.fixture
def rawc(db) -> Split:
    data = load_rawc(DATA / "rawc")
    keep = {p.key for p in data.pairs[:30]}
    rawc_import(data=RawcData(data.pairs[:30], [j for j in data.judgments if j.key in keep]))
    return Split.objects.get(dataset__name="raw-c")


def test_the_histogram_of_a_rawc_split_runs_from_0_to_4_and_counts_each_score(rawc):
    payload = CHARTS["rating-histogram"].payload(QueryDict(f"split={rawc.pk}"))
    assert payload["labels"] == [0, 1, 2, 3, 4]
    assert payload["axis"] == "relatedness (0-4)" and payload["items"] == "sentence pairs"
    assert payload["title"] == "Ratings by relatedness"
    ratings = Rating.objects.valid().filter(sample__split=rawc)
    expected = [ratings.filter(score=v).count() for v in range(5)]
    assert expected[0] > 0  # the data hold zeros: they must land on 0
    assert payload["series"] == [{"name": "ratings", "values": expected}]


def test_the_histogram_function_puts_each_score_on_its_kinds_scale():
    rows = [(0, True, 3), (4, True, 1)]
    assert score_histogram(rows, "relatedness")["series"][0]["values"] == [3, 0, 0, 0, 1]
    both = score_histogram([(1, True, 2), (5, False, 1)], "plausibility")
    assert both["labels"] == [1, 2, 3, 4, 5]
    assert both["series"] == [
        {"name": "open-ended", "values": [2, 0, 0, 0, 0]},
        {"name": "ended", "values": [0, 0, 0, 0, 1]},
    ]
    assert kind_scale("relatedness").labels == [0, 1, 2, 3, 4]


def test_the_agreement_page_captions_the_kinds_scale_and_items(researcher_client, rawc):
    html = researcher_client.get("/dashboards/", {"split": rawc.pk}).content.decode()
    caption = html[html.index('id="histogram-caption"') :][:400]
    assert "relatedness 0–4" in caption and "sentence pairs" in caption
    assert "1–5" not in caption and "ended" not in caption
    assert 'aria-label="Bar chart of the ratings of sentence pairs by relatedness (0 to 4)' in html


def test_a_plausibility_split_keeps_the_1_to_5_scale_and_the_ending_series(researcher_client, db):
    split = import_setups(1, split="plaus")
    payload = CHARTS["rating-histogram"].payload(QueryDict(f"split={split.pk}"))
    assert payload["labels"] == [1, 2, 3, 4, 5]
    assert [s["name"] for s in payload["series"]] == ["open-ended", "ended"]
    assert sum(sum(s["values"]) for s in payload["series"]) == 30
