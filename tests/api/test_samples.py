"""/api/v1/samples/: filters by split, homonym, ending presence and study."""

import pytest

from tests.api.conftest import assert_refused

pytestmark = pytest.mark.django_db


def ids(response) -> list[str]:
    assert response.status_code == 200, response.content
    return [row["dataset_id"] for row in response.json()["results"]]


def test_it_lists_samples_with_texts_and_statistics(api, small_split):
    body = api.get("/api/v1/samples/").json()
    assert body["count"] == 12
    first = body["results"][0]
    assert first["dataset_id"] == "0" and first["split_name"] == "dev"
    assert first["homonym"] == "bank" and first["ending"] == ""
    assert first["judged_meaning"] == "a financial institution"
    assert first["n_ratings"] == 5
    assert first["mean"] == pytest.approx((1 + 3 + 4 + 2 + 5) / 5)
    assert first["sd"] == pytest.approx(1.5811388300841898)


def test_it_filters_by_split_homonym_ending_and_study(api, small_split, study):
    assert len(ids(api.get("/api/v1/samples/", {"split": "dev", "dataset": "ambistory"}))) == 12
    assert ids(api.get("/api/v1/samples/", {"split": "train"})) == []
    assert ids(api.get("/api/v1/samples/", {"homonym": "bat"})) == [str(i) for i in range(6, 12)]
    assert ids(api.get("/api/v1/samples/", {"has_ending": "false"})) == ["0", "1", "6", "7"]
    assert len(ids(api.get("/api/v1/samples/", {"has_ending": "true"}))) == 8
    study.samples.set(study.samples.filter(dataset_id__in=["3", "4"]))
    assert ids(api.get("/api/v1/samples/", {"study": "pilot"})) == ["3", "4"]
    assert ids(api.get("/api/v1/samples/", {"study": "pilot", "homonym": "bat"})) == []


def test_it_paginates(api, small_split):
    page = api.get("/api/v1/samples/", {"page_size": 5, "page": 2}).json()
    assert page["count"] == 12 and len(page["results"]) == 5
    assert page["next"] and page["previous"]
    assert api.get("/api/v1/samples/", {"page": 99}).status_code == 404


def test_it_gives_non_researchers_nothing(non_researchers, small_split):
    sample = small_split.samples.first()
    for _, client, status in non_researchers:
        assert_refused(client.get("/api/v1/samples/"), status)
        assert_refused(client.get(f"/api/v1/samples/{sample.pk}/"), status)


def test_sd_is_the_official_one_not_the_databases(api, db):
    """PostgreSQL's stddev_samp gives 1.414213562373095 for [2, 4], the official
    ``statistics.stdev`` 1.4142135623730951: with the database's, a client applying the
    official rule to the API's mean and sd judged 1.585786437626905 outside one SD, where
    the official scorer counts it inside."""
    import statistics

    from annotations.importers import ambistory_import, parse_ambistory
    from annotations.models import Sample
    from annotations.official import is_within_sd
    from tests.factories import ambistory_sample

    ambistory_import(
        samples=parse_ambistory({"0": ambistory_sample("0", choices=[2, 4])}), split="sd"
    )
    (in_sql,) = Sample.objects.filter(split__name="sd").with_stats().values_list("sd", flat=True)
    official = statistics.stdev([2, 4])
    assert (in_sql, official) == (1.414213562373095, 1.4142135623730951)  # the two differ

    (row,) = api.get("/api/v1/samples/", {"split": "sd"}).json()["results"]
    assert row["sd"] == official and row["mean"] == 3.0
    assert api.get(f"/api/v1/samples/{row['id']}/").json()["sd"] == official
    prediction = 1.585786437626905
    assert is_within_sd(prediction, [2, 4])
    assert row["mean"] - row["sd"] < prediction  # the rule on the API's figures agrees
    assert not row["mean"] - in_sql < prediction  # on the database's it did not


def test_the_sd_is_computed_once_by_the_official_rule_not_also_in_sql(api, small_split):
    """The endpoint annotated ``stddev_samp`` in SQL and then replaced it with the official
    SD: the database's figure is no longer asked for, and the page shows the official one."""
    import statistics

    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from annotations.models import Rating

    with CaptureQueriesContext(connection) as queries:
        listed = api.get("/api/v1/samples/", {"page_size": 100}).json()["results"]
        one = api.get(f"/api/v1/samples/{listed[0]['id']}/").json()
    sql = " ".join(q["sql"] for q in queries.captured_queries).lower()
    assert "stddev" not in sql
    assert len(listed) == 12
    for row in listed:
        scores = list(Rating.objects.valid().filter(sample_id=row["id"]).values_list("score"))
        assert row["sd"] == statistics.stdev(s for (s,) in scores)
        assert row["mean"] == pytest.approx(statistics.mean(s for (s,) in scores))
    assert one["sd"] == listed[0]["sd"]


def test_it_offers_no_ordering_or_filter_by_sd(api, small_split):
    """The SD is set after the query (the official rule), so the endpoint cannot order or
    filter by it in SQL: such a parameter is refused, naming it."""
    for name, value in (("ordering", "sd"), ("sd", "1"), ("sd__gte", "1")):
        response = api.get("/api/v1/samples/", {name: value})
        assert response.status_code == 400 and name in response.json()
