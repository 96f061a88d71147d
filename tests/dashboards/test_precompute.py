"""Precompute (dashboards.precompute): after a bulk write (an import, a study opened) one task
computes the default scope of every dashboard page and endpoint, so that the first visit
finds it cached; only where the background is on (a cache shared with the worker)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.cache import caches
from django.db import transaction

from annotations.rawc import RawcData, load_rawc, rawc_import
from annotations.sensechoice import load_sense_choice, sense_choice_import
from annotations.signals import bulk_data_changed
from dashboards import background, precompute
from dashboards.tasks import precompute_pages
from tests.dashboards.helpers import import_run, import_setups, study_ratings
from tests.dashboards.test_cache import WARM_QUERIES
from tests.studies.helpers import open_study

pytestmark = pytest.mark.django_db

DATA = Path(__file__).resolve().parents[2] / "data"
ON = 0.3  # the background on, as with CACHE_URL on Redis


@pytest.fixture(autouse=True)
def empty_cache():
    caches["dashboards"].clear()


@pytest.fixture
def sent(monkeypatch) -> list[None]:
    """The precompute tasks enqueued (not sent to a broker)."""
    calls: list[None] = []
    monkeypatch.setattr(precompute, "enqueue", lambda: calls.append(None))
    return calls


@pytest.fixture
def announced() -> list[dict]:
    """Every ``bulk_data_changed`` sent."""
    found: list[dict] = []

    def receiver(sender, kind, **kwargs):
        found.append({"kind": kind})

    bulk_data_changed.connect(receiver, dispatch_uid="test-precompute")
    yield found
    bulk_data_changed.disconnect(dispatch_uid="test-precompute")


def computing_fails(monkeypatch) -> None:
    """From now on a request that computes a cached value instead of reading it fails."""

    def computing():
        raise AssertionError("computed in the request: not precomputed")

    monkeypatch.setattr(background, "computing", computing)


def rated_split():
    split = import_setups(2)
    import_run(split, "run-a")
    study_ratings(split, {"p1": [1, 2, 3, 4, 5, 1] * 2, "p2": [5, 4, 3, 2, 1, 5] * 2})
    return split


def test_an_import_enqueues_one_precompute_after_its_commit(
    settings, sent, announced, django_capture_on_commit_callbacks
):
    settings.DASHBOARD_BACKGROUND_AFTER_SECONDS = ON
    with django_capture_on_commit_callbacks(execute=True):
        import_setups(3)  # 18 samples, 90 ratings
        assert sent == []  # not before the commit
    assert announced == [{"kind": "plausibility"}]  # once per import, not per row
    assert len(sent) == 1


@pytest.mark.parametrize("threshold", [0, None])
def test_nothing_is_enqueued_with_the_background_off(
    settings, sent, announced, threshold, django_capture_on_commit_callbacks
):
    settings.DASHBOARD_BACKGROUND_AFTER_SECONDS = threshold  # the demo's memory cache
    with django_capture_on_commit_callbacks(execute=True):
        import_setups(2)
    assert len(announced) == 1 and sent == []


def test_a_rolled_back_import_announces_nothing(
    settings, sent, announced, django_capture_on_commit_callbacks
):
    settings.DASHBOARD_BACKGROUND_AFTER_SECONDS = ON
    with django_capture_on_commit_callbacks(execute=True):
        with pytest.raises(RuntimeError), transaction.atomic():
            import_setups(2)
            raise RuntimeError("a later step failed")
    assert announced == [] and sent == []


def test_a_reimport_that_creates_nothing_announces_nothing(
    announced, django_capture_on_commit_callbacks
):
    import_setups(2)
    with django_capture_on_commit_callbacks(execute=True):
        import_setups(2)
    assert announced == []


def _rawc():
    data = load_rawc(DATA / "rawc")
    keep = {p.key for p in data.pairs[:30]}
    rawc_import(data=RawcData(data.pairs[:30], [j for j in data.judgments if j.key in keep]))


def _sense_choice():
    sense_choice_import(data=load_sense_choice(DATA / "fool" / "fool-sample.json"))


def _predictions():
    import_run(import_setups(1), "run-a")


@pytest.mark.parametrize(
    ("write", "kind", "before"),
    [
        (_rawc, "relatedness", 0),
        (_sense_choice, "sense_choice", 0),
        (_predictions, "plausibility", 1),  # the split's import, then the run's
        (open_study, "plausibility", 1),  # the study's samples' import, then the opening
    ],
)
def test_every_bulk_write_announces_itself_once(
    write, kind, before, settings, sent, announced, django_capture_on_commit_callbacks
):
    settings.DASHBOARD_BACKGROUND_AFTER_SECONDS = ON
    with django_capture_on_commit_callbacks(execute=True):
        write()
    assert len(announced) == before + 1 and announced[-1] == {"kind": kind}
    assert len(sent) == before + 1


def test_after_the_precompute_every_default_page_is_a_cache_hit(
    researcher_client, monkeypatch, django_assert_max_num_queries
):
    rated_split()
    precompute_pages.apply()  # what the worker runs
    computing_fails(monkeypatch)
    for path in precompute.default_paths():
        with django_assert_max_num_queries(WARM_QUERIES):
            response = researcher_client.get(path)
        assert response.status_code == 200, path
    with pytest.raises(AssertionError, match="not precomputed"):  # the hook does fail
        researcher_client.get("/dashboards/?kind=relatedness")  # not a default scope


def test_the_precompute_covers_every_page_and_endpoint_without_arguments(researcher):
    rated_split()
    done = precompute.precompute()
    assert set(done) == set(precompute.default_paths()) and set(done.values()) == {200}
    assert "/dashboards/" in done and "/dashboards/agreement.json" in done
    assert "/dashboards/charts/label-distribution.json" in done
    locks = [k for k in caches["dashboards"]._cache if ":dash-precompute:" in k]  # type: ignore[attr-defined]
    assert locks == []  # released


def test_a_page_another_warm_of_the_same_data_holds_is_left_to_it(researcher, monkeypatch):
    rated_split()
    store = caches["dashboards"]
    from annotations.data_versions import data_version

    held = f"dash-precompute:{data_version(kind=None)}:/dashboards/"
    store.add(held, 0.0)
    requested: list[str] = []
    monkeypatch.setattr(background, "refresh", lambda path, *args: requested.append(path) or 200)
    precompute.precompute()
    assert "/dashboards/" not in requested
    assert len(requested) == len(precompute.default_paths()) - 1


def test_without_a_researcher_nothing_is_computed(monkeypatch):
    rated_split()
    monkeypatch.setattr(background, "refresh", lambda *args: pytest.fail("computed"))
    assert precompute.precompute() == {}


def test_a_broker_down_leaves_the_import_done(
    settings, monkeypatch, caplog, django_capture_on_commit_callbacks
):
    settings.DASHBOARD_BACKGROUND_AFTER_SECONDS = ON

    def broker_down():
        raise ConnectionError("broker down")

    monkeypatch.setattr(precompute, "enqueue", broker_down)
    with django_capture_on_commit_callbacks(execute=True):
        split = import_setups(2)
    assert split.samples.count() == 12
    assert "dashboard precompute not enqueued" in caplog.text
