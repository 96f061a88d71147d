"""/api/v1/ratings/: long format, pseudonyms only, excluded raters left out by default."""

import pytest

from tests.api.conftest import PARTICIPANT_PSEUDONYM, PROLIFIC_PID, assert_refused

pytestmark = pytest.mark.django_db


def test_it_lists_ratings_in_long_format_by_pseudonym(api, small_split, participant):
    response = api.get("/api/v1/ratings/", {"page_size": 1000})
    assert response.status_code == 200
    rows = response.json()["results"]
    assert len(rows) == 12 * 5 + 1
    first = rows[0]
    assert first["dataset_id"] == "0" and first["split"] == "dev"
    assert first["score"] == 1 and first["rater_kind"] == "imported"
    assert first["rater_excluded"] is False
    mine = [r for r in rows if r["rater"] == PARTICIPANT_PSEUDONYM]
    assert [(m["score"], m["rater_kind"]) for m in mine] == [(2, "participant")]
    assert PROLIFIC_PID not in response.content.decode()


def test_it_leaves_excluded_raters_out_unless_asked(api, small_split, excluded_rater):
    valid = api.get("/api/v1/ratings/", {"page_size": 1000}).json()["results"]
    assert len(valid) == 48
    assert excluded_rater.pseudonym not in {r["rater"] for r in valid}
    everything = api.get("/api/v1/ratings/", {"page_size": 1000, "include_excluded": "true"})
    rows = everything.json()["results"]
    assert len(rows) == 60
    flagged = {r["rater"] for r in rows if r["rater_excluded"]}
    assert flagged == {excluded_rater.pseudonym}


def test_it_filters_by_study_rater_sample_and_kind(api, small_split, participant):
    by_study = api.get("/api/v1/ratings/", {"study": "pilot"}).json()["results"]
    assert [r["rater"] for r in by_study] == [PARTICIPANT_PSEUDONYM]
    assert api.get("/api/v1/ratings/", {"rater_kind": "participant"}).json()["count"] == 1
    sample = small_split.samples.get(dataset_id="3")
    assert api.get("/api/v1/ratings/", {"sample": sample.pk}).json()["count"] == 5
    assert api.get("/api/v1/ratings/", {"rater_kind": "nobody"}).status_code == 400


def test_it_gives_non_researchers_nothing(non_researchers, small_split, participant):
    for _, client, status in non_researchers:
        assert_refused(client.get("/api/v1/ratings/"), status)
        assert_refused(client.get("/api/v1/ratings/1/"), status)


def test_each_rating_carries_the_sentence_order_the_exports_carry(api, small_split, participant):
    from annotations.models import Rating

    Rating.objects.filter(rater=participant.rater).update(sentence_order="21")
    rows = api.get("/api/v1/ratings/", {"page_size": 1000}).json()["results"]
    mine = [r["sentence_order"] for r in rows if r["rater"] == PARTICIPANT_PSEUDONYM]
    assert mine == ["21"]
    assert {r["sentence_order"] for r in rows if r["rater"] != PARTICIPANT_PSEUDONYM} == {""}
