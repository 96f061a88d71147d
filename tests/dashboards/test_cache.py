"""The dashboards' cache: a page's second request is answered from the cache with a few
queries, every kind of write shows on the very next request (the data version bumped in the
write's service), and a cache that is down or on Redis gives the same figures."""

from __future__ import annotations

import logging

import pytest
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotations.reference import reference_edit_impact
from annotations.services import rater_exclude
from dashboards.cache import cache_key, scope_version
from dashboards.forms import sample_filter
from predictions.models import ModelRun, Prediction
from predictions.runs.worker import run_finish
from studies import services
from studies.lifecycle import study_update
from studies.text_corrections import sample_reference_edit, sample_texts_correct
from tests.ambisite.test_cache_unavailable import closed_port
from tests.dashboards.helpers import DASHBOARD_URLS, import_run, import_setups, study_ratings
from tests.studies.helpers import open_study, pid, qualify, rate_all

pytestmark = pytest.mark.django_db

WARM_QUERIES = 7  # login, data version, the filter form's choices, a page's own rows


@pytest.fixture(autouse=True)
def empty_cache():
    caches["dashboards"].clear()


def figures(client, query: str = "") -> dict:
    response = client.get(f"/dashboards/agreement.json?boot=10{query}")
    assert response.status_code == 200, response.content
    return response.json()


def n_ratings(client, query: str = "") -> int:
    return figures(client, query)["n_ratings"]


def rated_study(n_participants: int = 6):
    """One setup (6 samples) in a study, one rating a participant, all rated."""
    study = open_study(1, per_participant=1, ratings=1, checks=0)
    for n in range(n_participants):
        participant = services.participant_arrive(study=study, pid=pid(n))
        qualify(participant)
        rate_all(participant)
    return study


@pytest.fixture
def scored(db):
    split = import_setups(2)
    import_run(split, "run-a")
    raters = study_ratings(split, {"p1": [1, 2, 3, 4, 5, 1] * 2, "p2": [5, 4, 3, 2, 1, 5] * 2})
    return split, raters


# --- the second request -----------------------------------------------------------------------


@pytest.mark.parametrize("url", DASHBOARD_URLS)
def test_a_second_request_is_answered_with_a_few_queries(
    researcher_client, scored, url, django_assert_max_num_queries
):
    split, _ = scored
    run = split.model_runs.get()
    setup = split.samples.first().story.setup_id
    url += {"model-vs-human": f"?run={run.pk}", "setup-histograms": f"?setup={setup}"}.get(
        url.rsplit("/", 1)[-1].removesuffix(".json"), ""
    )
    with CaptureQueriesContext(connection) as cold:
        first = researcher_client.get(url)
    with django_assert_max_num_queries(WARM_QUERIES) as warm:
        second = researcher_client.get(url)
    assert first.status_code == second.status_code == 200
    assert len(warm) < len(cold)  # the figures came from the cache
    if ".json" in url:
        assert second.json() == first.json()


def test_the_item_explorer_pages_and_sorts_from_the_cache(
    researcher_client, scored, django_assert_max_num_queries
):
    split, _ = scored
    run = split.model_runs.get()
    for query in ("sort=sd", f"sort=error&run={run.pk}", "sort=sd&page=2", ""):
        first = researcher_client.get(f"/dashboards/items/?{query}")
        with django_assert_max_num_queries(WARM_QUERIES):
            second = researcher_client.get(f"/dashboards/items/?{query}")
        ids = [row.sample.pk for row in second.context["rows"]]
        assert ids == [row.sample.pk for row in first.context["rows"]] and ids


def _reads(queries, table: str) -> bool:
    return any(table in q["sql"] for q in queries.captured_queries)


def test_the_leaderboard_pages_share_one_build_of_the_runs_arrays(researcher_client, scored):
    """The leaderboard builds every run's arrays (and its label changes and scope) once per
    scope version; its paired comparison, its intervals and the label-distribution chart
    reuse them (no query of ratings or predictions), until a
    write to the scope makes the next of them build the arrays again."""
    split, (p1, _) = scored
    run = split.model_runs.get().pk
    assert researcher_client.get("/dashboards/leaderboard/").status_code == 200
    with CaptureQueriesContext(connection) as shared:
        paired = researcher_client.get(f"/dashboards/leaderboard/?a={run}&b={run}")
        assert paired.context["paired"] is not None
        intervals = researcher_client.get("/dashboards/leaderboard/intervals.json?boot=10")
        chart = researcher_client.get("/dashboards/charts/label-distribution.json")
    assert intervals.status_code == chart.status_code == 200
    assert intervals.json()["runs"] and chart.json()["series"]
    assert not _reads(shared, "annotations_rating")
    assert not _reads(shared, "predictions_prediction")
    rater_exclude(rater=p1, source="manual", reason="test")
    with CaptureQueriesContext(connection) as after_write:
        researcher_client.get("/dashboards/leaderboard/intervals.json?boot=10")
    assert _reads(after_write, "annotations_rating")
    assert _reads(after_write, "predictions_prediction")


# --- every kind of write shows at once --------------------------------------------------------


def test_a_participants_rating_shows_at_once_in_every_scope_that_counts_it(researcher_client):
    study = open_study(1, per_participant=1, ratings=2, checks=0)
    participant = services.participant_arrive(study=study, pid=pid(1))
    qualify(participant)
    scopes = ("", "&study=demo", "&split=study")
    before = [n_ratings(researcher_client, q) for q in scopes]
    rate_all(participant)  # services.item_save, the crowd path's one write
    assert [n_ratings(researcher_client, q) for q in scopes] == [n + 1 for n in before]


def test_a_participants_rating_changes_the_leaderboards_key_in_the_reference_scope_too():
    """The reference scope (no study) counts every rater's ratings, the crowd's included, so
    a participant's rating must change its leaderboard's version, as in the study's scope."""
    study = open_study(1, per_participant=1, ratings=2, checks=0)
    participant = services.participant_arrive(study=study, pid=pid(1))
    qualify(participant)

    def keys() -> list[str]:
        forms = [sample_filter({}), sample_filter({"study": "demo"})]
        return [cache_key("leaderboard", f, scope_version(f, runs=True), {}) for f in forms]

    before = keys()
    rate_all(participant)
    assert [a != b for a, b in zip(before, keys())] == [True, True]


def test_an_exclusion_and_an_inclusion_from_the_annotators_page_show_at_once(
    researcher_client, scored
):
    _, (p1, _) = scored
    assert n_ratings(researcher_client) == 60 + 24
    url = f"/dashboards/annotators/{p1.pk}/exclusion/"
    researcher_client.post(url, {"action": "exclude", "reason": "straight-lining"})
    assert n_ratings(researcher_client) == 60 + 12
    page = researcher_client.get("/dashboards/annotators/")
    assert page.context["exclusions"][0].rater == p1
    researcher_client.post(url, {"action": "include"})
    assert n_ratings(researcher_client) == 60 + 24


def test_an_import_shows_at_once(researcher_client, scored):
    assert n_ratings(researcher_client) == 84
    import_setups(1, split="more", prefix="other")  # annotations.importers.ambistory_import
    assert n_ratings(researcher_client) == 84 + 30


def test_a_reference_text_edit_shows_at_once(researcher_client, scored):
    split, _ = scored
    sample = split.samples.exclude(story__ending="").order_by("position").first()
    texts = {"ending": "A different ending altogether."}
    before = figures(researcher_client)
    impact = reference_edit_impact(sample=sample, texts=texts)
    sample_reference_edit(sample=sample, texts=texts, confirm_labels=impact.labels)
    after = figures(researcher_client)
    assert impact.leaving > 0
    assert after["n_ratings"] == before["n_ratings"] - impact.leaving


def test_a_study_text_correction_shows_at_once_in_the_studys_scope(researcher_client):
    study = rated_study()
    assert n_ratings(researcher_client, "&study=demo") == 6
    sample = study.samples.exclude(story__ending="").first()
    changed = sample_texts_correct(study=study, sample=sample, texts={"ending": "New."})
    assert n_ratings(researcher_client, "&study=demo") == 6 - len(changed)


def test_a_study_given_other_samples_shows_them_at_once(researcher_client, scored):
    split, _ = scored
    samples = list(split.samples.order_by("position"))
    study = services.study_create(title="Draft", slug="demo", samples=samples[:6])
    items = "/dashboards/items/?study=demo"
    assert researcher_client.get(items).context["page"].paginator.count == 6
    study_update(study=study, samples=list(split.samples.all()))
    assert researcher_client.get(items).context["page"].paginator.count == 12


def test_an_imported_run_and_a_finished_run_show_at_once(researcher_client, scored):
    split, _ = scored
    board = "/dashboards/leaderboard/intervals.json?boot=10"
    assert len(researcher_client.get(board).json()["runs"]) == 1
    import_run(split, "run-b")  # predictions.io.importers -> run_score
    assert len(researcher_client.get(board).json()["runs"]) == 2
    samples = list(split.samples.all())
    run = ModelRun.objects.create(
        name="worker run", backend="constant", split=split, total=len(samples), status="running"
    )
    Prediction.objects.bulk_create(Prediction(run=run, sample=s, score=3.0) for s in samples)
    assert len(researcher_client.get(board).json()["runs"]) == 2  # not finished yet
    run_finish(run, worker=run.worker)  # the worker's end -> run_score
    assert str(run.pk) in researcher_client.get(board).json()["runs"]


def test_the_agreement_page_and_its_intervals_share_one_read_of_the_ratings(
    researcher_client, scored
):
    _, (p1, _) = scored
    assert researcher_client.get("/dashboards/").status_code == 200
    with CaptureQueriesContext(connection) as shared:
        found = figures(researcher_client)
    assert found["n_ratings"] > 12 and found["metrics"]
    assert not _reads(shared, "annotations_rating")
    rater_exclude(rater=p1, source="manual", reason="test")
    with CaptureQueriesContext(connection) as after_write:
        assert figures(researcher_client)["n_ratings"] == found["n_ratings"] - 12  # p1's
    assert _reads(after_write, "annotations_rating")


def test_a_finished_run_leaves_the_figures_that_read_no_run_cached(researcher_client, scored):
    """A run changes the leaderboard's key but not the agreement page's, nor a rating
    chart's (they read no run); an exclusion changes both."""
    split, (p1, _) = scored
    agreement, board = "/dashboards/agreement.json?boot=10", "/dashboards/leaderboard/"
    histogram = "/dashboards/charts/rating-histogram.json"
    for url in (agreement, board, histogram):
        researcher_client.get(url)
    import_run(split, "run-b")  # -> run_score (which reads the ratings itself)
    with CaptureQueriesContext(connection) as after_run:
        researcher_client.get(agreement)
        researcher_client.get(histogram)
    assert not _reads(after_run, "annotations_rating")  # answered from the cache
    with CaptureQueriesContext(connection) as board_after_run:
        researcher_client.get(board)
    assert _reads(board_after_run, "annotations_rating")
    rater_exclude(rater=p1, source="manual", reason="test")  # which ratings count changed
    with CaptureQueriesContext(connection) as after_rating:
        researcher_client.get(agreement)
        researcher_client.get(histogram)
    assert _reads(after_rating, "annotations_rating")


def test_a_rater_excluded_by_a_service_leaves_every_chart_at_once(researcher_client, scored):
    _, (p1, _) = scored
    chart = "/dashboards/charts/rating-histogram.json"
    before = researcher_client.get(chart).json()
    rater_exclude(rater=p1, source="manual", reason="test")
    after = researcher_client.get(chart).json()
    assert after != before


# --- the cache's backends ---------------------------------------------------------------------


def test_a_dashboard_cache_that_is_down_costs_speed_not_the_page(
    researcher_client, scored, settings, caplog
):
    expected = figures(researcher_client)
    settings.CACHES = {
        **settings.CACHES,
        "dashboards": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{closed_port()}/7",
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        },
    }
    with caplog.at_level(logging.WARNING, logger="dashboards.cache"):
        for url in DASHBOARD_URLS[:7]:
            assert researcher_client.get(url).status_code == 200, url
        assert figures(researcher_client) == expected
    assert "dashboard cache unavailable" in caplog.text
    caches["dashboards"].close()


def test_redis_holds_the_figures_and_a_write_still_shows_at_once(
    researcher_client, scored, settings, django_assert_max_num_queries
):
    from tests.faults.stack import PrivateRedis

    redis = PrivateRedis()
    redis.start()
    try:
        settings.CACHES = {
            **settings.CACHES,
            "dashboards": {
                "BACKEND": "django.core.cache.backends.redis.RedisCache",
                "LOCATION": redis.url,
                "KEY_PREFIX": "dash",
            },
        }
        assert n_ratings(researcher_client) == 84
        with django_assert_max_num_queries(WARM_QUERIES):
            assert n_ratings(researcher_client) == 84
        assert caches["dashboards"].get_many([]) == {}  # reachable
        import_setups(1, split="more", prefix="other")
        assert n_ratings(researcher_client) == 84 + 30
        caches["dashboards"].close()
    finally:
        redis.kill()


def test_an_exclusion_by_the_attention_threshold_shows_at_once(researcher_client):
    from studies.models import AttentionAnswer, Slot
    from studies.selectors import batch_items

    study = open_study(2, per_participant=2, ratings=2, checks=1)
    participant = services.participant_arrive(study=study, pid=pid(1))
    qualify(participant)
    check = participant.attention_answers.get()
    last = Slot.objects.filter(participant=participant).order_by("-position").first()
    if last.position > check.position:  # the check last, the samples first
        Slot.objects.filter(pk=last.pk).update(position=check.position)
        AttentionAnswer.objects.filter(pk=check.pk).update(position=last.position)
        check.refresh_from_db()
    for item in batch_items(participant):
        if item.position != check.position:
            services.item_save(
                participant=participant, position=item.position, answer=services.Answer(score=3)
            )
    assert n_ratings(researcher_client, "&study=demo") == 2  # now cached
    wrong = (check.question.expected + 2) % 5 + 1
    services.item_save(
        participant=participant, position=check.position, answer=services.Answer(score=wrong)
    )  # studies.exclusions.attention_check_graded -> participant_exclude
    assert n_ratings(researcher_client, "&study=demo") == 0


# --- the pages of several kinds -----------------------------------------------------------------


def test_the_kinds_page_shows_a_rawc_import_and_an_exclusion_at_once(
    researcher_client, django_assert_max_num_queries
):
    from annotations.models import Rater
    from annotations.rawc import RawcData, load_rawc, rawc_import
    from tests.studies.kinds_helpers import DATA

    data = load_rawc(DATA / "rawc")

    def first(n: int) -> RawcData:
        keep = {p.key for p in data.pairs[:n]}
        return RawcData(data.pairs[:n], [j for j in data.judgments if j.key in keep])

    def view():
        return researcher_client.get("/dashboards/kinds/").context["relatedness"][0]

    rawc_import(data=first(20))
    assert view().n_pairs == 20
    with django_assert_max_num_queries(WARM_QUERIES):
        assert view().n_pairs == 20
    rawc_import(data=first(40))  # annotations.rawc.rawc_import
    before = view()
    assert before.n_pairs == 40
    rater = Rater.objects.filter(ratings__kind="relatedness").first()
    rater_exclude(rater=rater, source="manual", reason="test")
    assert view().n_judgments < before.n_judgments


def test_the_paper_page_shows_an_ambistory_import_at_once(
    researcher_client, scored, django_assert_max_num_queries
):
    def n_splits() -> int:
        return len(researcher_client.get("/dashboards/papers/").context["ambistory"])

    first = n_splits()
    with django_assert_max_num_queries(WARM_QUERIES):
        assert n_splits() == first
    import_setups(1, split="more", prefix="other")
    assert n_splits() == first + 1


def test_a_rating_changed_in_the_admin_shows_at_once(researcher_client, scored, django_user_model):
    from django.test import Client

    from annotations.models import Rating

    _, (p1, _) = scored
    rating = Rating.objects.filter(rater=p1).order_by("id").first()
    chart = "/dashboards/charts/rating-histogram.json"
    before = researcher_client.get(chart).json()
    admin = Client()
    admin.force_login(django_user_model.objects.create_superuser("root", "r@example.org", "pw"))
    url = f"/admin/annotations/rating/{rating.pk}/change/"
    fields = {
        "sample": rating.sample_id,
        "rater": rating.rater_id,
        "kind": rating.kind,
        "score": 6 - rating.score if rating.score != 3 else 4,
        "setup_version": 1,
        "story_version": 1,
        "sense_version": 1,
    }
    assert admin.post(url, fields).status_code == 302
    assert researcher_client.get(chart).json() != before


def test_a_newer_version_replaces_the_older_in_the_cache(researcher_client, scored):
    """One entry per value and filters, not one per write: storing a value's new version
    deletes the old one (a live study writes a new version with every rating)."""
    store = caches["dashboards"]

    def entries() -> set[str]:
        return {k.split(":", 3)[-1] for k in store._cache if ":dash:agreement" in k}  # type: ignore[attr-defined]

    figures(researcher_client)
    before = entries()
    assert before
    _, raters = scored
    rater_exclude(rater=raters[0], source="manual", reason="test")
    figures(researcher_client)
    after = entries()
    assert after and not after & before  # the old version's entries are gone
    assert len(after) == len(before)
