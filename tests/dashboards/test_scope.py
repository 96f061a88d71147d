"""One rating scope everywhere: with ``?study=`` every dashboard page, JSON endpoint and
export counts only the study's own ratings (not the imported ones, nor another study's,
of the same samples), and every one of them refuses an unknown parameter with a 400 that
names it. The addresses come from the URLconf, so a new endpoint cannot be forgotten."""

from __future__ import annotations

import csv
import io
import json
import statistics

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from annotations.models import Rater
from dashboards.charts import CHARTS
from studies.models import Participant, Study, StudySample
from tests.dashboards.helpers import import_run, import_setups, study_ratings

pytestmark = pytest.mark.django_db

OWN = {"S1": [5] * 6, "S2": [5] * 6, "S3": [4] * 6}  # the study's: 18 ratings, 4 or 5
N_OWN = 18
# Addresses that count no ratings: they take no scope, but refuse unknown parameters too.
WUG_EXPORTS = ("uses", "judgments", "clusters", "scores")
NO_RATINGS = {"export-run-predictions", "export-run-codabench", "writing:export"} | {
    f"wug-export-{what}" for what in WUG_EXPORTS
}
POST_ONLY = {"dashboards:rater_exclusion"}


def _study(split, slug: str, scores: dict[str, list[int]]) -> Study:
    study = Study.objects.create(
        slug=slug, title=slug.title(), completion_code="c", screenout_code="x"
    )
    for k, rater in enumerate(study_ratings(split, scores)):
        Participant.objects.create(study=study, rater=rater, prolific_pid=f"{slug}-P{k}")
    StudySample.objects.bulk_create(StudySample(study=study, sample=s) for s in split.samples.all())
    return study


@pytest.fixture
def world(db):
    """Six samples with five imported ratings each, the study's 18 ratings and another
    study's six, all on the same samples; one run that predicts 5 everywhere."""
    split = import_setups(1, split="scoped")
    run = import_run(split, "fives", value=lambda i: 5)
    study = _study(split, "pilot", OWN)
    _study(split, "other", {"O1": [1] * 6})
    return {"split": split, "run": run, "study": study}


def _patterns(resolver: URLResolver, prefix: str = "", namespace: str = ""):
    for entry in resolver.url_patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            yield from _patterns(entry, route, inner)
        elif isinstance(entry, URLPattern) and entry.name:
            yield f"{namespace}{entry.name}", route


def scoped_endpoints() -> set[str]:
    """Every dashboard address and every export in the URLconf (charts one by one)."""
    names = set()
    for name, route in _patterns(get_resolver()):
        if name == "dashboards:chart":
            names |= {f"dashboards:chart:{slug}" for slug in CHARTS}
        elif route.startswith("dashboards/") or "export" in name:
            names.add(name)
    return names


def url_of(name: str, world) -> str:
    split, run, study = world["split"], world["run"], world["study"]
    setup = split.samples.first().story.setup_id
    rater = Rater.objects.get(pseudonym="S1").pk
    chart_params = {"model-vs-human": f"run={run.pk}", "setup-histograms": f"setup={setup}"}
    if name.startswith("dashboards:chart:"):
        slug = name.split(":")[-1]
        return f"/dashboards/charts/{slug}.json?{chart_params.get(slug, '')}"
    return {
        "dashboards:agreement": "/dashboards/?",
        "dashboards:agreement_json": "/dashboards/agreement.json?boot=10",
        "dashboards:items": "/dashboards/items/?",
        "dashboards:setup": f"/dashboards/setups/{setup}/?",
        "dashboards:leaderboard": "/dashboards/leaderboard/?",
        "dashboards:leaderboard_json": "/dashboards/leaderboard/intervals.json?boot=10",
        "dashboards:endings": "/dashboards/endings/?",
        "dashboards:kinds": "/dashboards/kinds/?",
        "dashboards:papers": "/dashboards/papers/?",
        "dashboards:annotators": "/dashboards/annotators/?",
        "dashboards:rater_exclusion": f"/dashboards/annotators/{rater}/exclusion/?",
        "export-reference": "/api/v1/exports/reference.jsonl?split=scoped",
        "export-ambistory": "/api/v1/exports/ambistory.json?split=scoped",
        "export-ratings-csv": "/api/v1/exports/ratings.csv?",
        "export-ratings-jsonl": "/api/v1/exports/ratings.jsonl?",
        "export-run-predictions": f"/api/v1/runs/{run.pk}/predictions.jsonl?",
        "export-run-codabench": f"/api/v1/runs/{run.pk}/codabench.zip?",
        "studies:export": f"/studies/{study.pk}/export.json?",
        "writing:export": "/writing/export.json?",
        **{f"wug-export-{w}": f"/api/v1/wug/exports/{w}.jsonl?" for w in WUG_EXPORTS},
    }[name]


def body(response) -> bytes:
    if response.streaming:
        return b"".join(response.streaming_content)
    return response.content


def _sorted_labels(mapping) -> list[list[int]]:
    return sorted(sorted(v) for v in mapping)


def _histogram(r):
    counts = [sum(values) for values in zip(*(s["values"] for s in r.json()["series"]))]
    assert sum(counts) == N_OWN and counts[r.json()["labels"].index(4)] == 6


def _homonym_sd(r):
    assert r.json()["series"][0]["values"] == [round(statistics.stdev([5, 5, 4]), 4)]


def _scatter(r):
    points = r.json()["points"]
    assert len(points) == 6 and {round(p["x"], 3) for p in points} == {4.667}


def _label_distribution(r):
    humans = r.json()["series"][-1]
    assert humans["name"] == "humans" and humans["values"] == [0, 0, 0, 0, 100.0]


def _setup_histograms(r):
    assert sum(sum(cell) for cell in r.json()["cells"].values()) == N_OWN


def _intervals(r):
    found = next(iter(r.json()["runs"].values()))
    assert found["accuracy"] == [1.0, 1.0]  # 5 is inside every study sample's band


def _long_csv(r):
    rows = list(csv.DictReader(io.StringIO(body(r).decode())))
    assert len(rows) == N_OWN and {row["rater"] for row in rows} == set(OWN)


def _long_jsonl(r):
    rows = [json.loads(line) for line in body(r).decode().splitlines()]
    assert len(rows) == N_OWN and {row["rater"] for row in rows} == set(OWN)


def _reference(r):
    labels = [json.loads(line)["label"] for line in body(r).decode().splitlines()]
    assert _sorted_labels(labels) == [[4, 5, 5]] * 6


def _ambistory(r):
    records = json.loads(body(r)).values()
    assert _sorted_labels(rec["choices"] for rec in records) == [[4, 5, 5]] * 6


def _items(r):
    rows = r.context["rows"]
    assert sum(len(row.ratings) for row in rows) == N_OWN
    assert {round(row.sample.mean, 3) for row in rows} == {4.667}


def _setup(r):
    cells = r.context["grid"].cells.values()
    assert sorted(sorted(row.labels) for row in cells) == [[4, 5, 5]] * 6


def _leaderboard(r):
    assert r.context["rows"][0].parts["all"].accuracy == 1.0


def _endings(r):
    assert r.context["summary"]["setups"] == 1
    assert r.context["scope"]["study"] == "Pilot"


def _kinds(r):
    assert "Pilot (pilot), its own participants' ratings only" in r.context["scope_text"]


def _annotators(r):
    assert r.context["n_raters"] == 3


STUDY_CHECKS = {
    "dashboards:agreement": lambda r: r.context["n_ratings"] == N_OWN,
    "dashboards:agreement_json": lambda r: r.json()["n_ratings"] == N_OWN,
    "dashboards:items": _items,
    "dashboards:setup": _setup,
    "dashboards:leaderboard": _leaderboard,
    "dashboards:leaderboard_json": _intervals,
    "dashboards:endings": _endings,
    "dashboards:kinds": _kinds,
    "dashboards:papers": _kinds,
    "dashboards:annotators": _annotators,
    "dashboards:chart:rating-histogram": _histogram,
    "dashboards:chart:homonym-sd": _homonym_sd,
    "dashboards:chart:model-vs-human": _scatter,
    "dashboards:chart:label-distribution": _label_distribution,
    "dashboards:chart:setup-histograms": _setup_histograms,
    "export-reference": _reference,
    "export-ambistory": _ambistory,
    "export-ratings-csv": _long_csv,
    "export-ratings-jsonl": _long_jsonl,
}


def test_every_endpoint_of_the_urlconf_is_checked_here():
    assert scoped_endpoints() == set(STUDY_CHECKS) | NO_RATINGS | POST_ONLY | {"studies:export"}


@pytest.mark.parametrize("name", sorted(STUDY_CHECKS))
def test_with_a_study_every_page_json_endpoint_and_export_counts_only_its_own_ratings(
    researcher_client, world, name
):
    response = researcher_client.get(url_of(name, world) + "&study=pilot")
    assert response.status_code == 200
    assert STUDY_CHECKS[name](response) is not False


def test_without_a_study_the_same_endpoints_count_every_rating(researcher_client, world):
    """The counterpart: the study filter is what narrows (30 imported + 24 study ratings)."""
    r = researcher_client.get(url_of("dashboards:agreement_json", world))
    assert r.json()["n_ratings"] == 30 + N_OWN + 6
    r = researcher_client.get(url_of("export-ratings-jsonl", world))
    assert len(body(r).decode().splitlines()) == 30 + N_OWN + 6
    r = researcher_client.get(url_of("dashboards:leaderboard_json", world))
    assert next(iter(r.json()["runs"].values()))["accuracy"] != [1.0, 1.0]


def test_the_study_page_export_holds_the_studys_own_ratings(researcher_client, world):
    response = researcher_client.get(url_of("studies:export", world))
    assert (
        _sorted_labels(r["choices"] for r in json.loads(body(response)).values()) == [[4, 5, 5]] * 6
    )


def test_the_study_can_be_named_by_id_or_slug_and_the_page_says_which(researcher_client, world):
    by_id = researcher_client.get("/dashboards/agreement.json", {"study": world["study"].pk})
    by_slug = researcher_client.get("/dashboards/agreement.json", {"study": "pilot"})
    assert by_id.json()["n_ratings"] == by_slug.json()["n_ratings"] == N_OWN
    assert "study: Pilot (pilot)" in by_slug.json()["scope"]
    html = researcher_client.get("/dashboards/items/", {"study": "pilot"}).content.decode()
    assert 'id="scope-summary"' in html and "Pilot (pilot)" in html


@pytest.mark.parametrize("name", sorted(scoped_endpoints() - POST_ONLY))
def test_an_unknown_parameter_is_refused_with_a_400_that_names_it(researcher_client, world, name):
    response = researcher_client.get(url_of(name, world) + "&studdy=pilot")
    assert response.status_code == 400, name
    assert b"studdy" in body(response), name


@pytest.mark.parametrize("page", ["/dashboards/kinds/", "/dashboards/papers/"])
def test_a_page_of_rating_scope_only_refuses_the_sample_filters_it_would_ignore(
    researcher_client, world, page
):
    """The task-kinds and papers' pages answered ``?homonym=x`` with every sample's figures
    (and cached a copy per value): a filter they do not apply is a 400 naming it."""
    response = researcher_client.get(page, {"homonym": "bank"})
    assert response.status_code == 400 and b"homonym" in body(response)
    assert researcher_client.get(page).status_code == 200


@pytest.mark.parametrize(
    "query, named",
    [
        ("study=nosuch", b"study"),
        ("split=99999", b"split"),
        ("kind=colour", b"kind"),
        ("include_excluded=maybe", b"include_excluded"),
    ],
)
def test_a_bad_scope_value_is_refused_naming_the_parameter(researcher_client, world, query, named):
    for url in ("/dashboards/?", "/dashboards/charts/rating-histogram.json?"):
        response = researcher_client.get(url + query)
        assert response.status_code == 400 and named in response.content, url
    response = researcher_client.get("/api/v1/exports/ratings.jsonl?" + query)
    assert response.status_code in (400, 404) and named in response.content


def test_with_a_study_its_own_corrected_text_decides_which_ratings_are_current(
    researcher_client, world
):
    """A correction made in the study outdates its ratings of the old text (for the study
    only) and counts those given on the text it shows now."""
    from annotations.models import Rating
    from studies.text_corrections import sample_texts_correct

    study = world["study"]
    sample = world["split"].samples.exclude(story__ending="").order_by("position").first()
    sample_texts_correct(study=study, sample=sample, texts={"ending": "A new ending."})
    rater = Rater.objects.create(kind=Rater.Kind.PARTICIPANT, pseudonym="S4")
    Participant.objects.create(study=study, rater=rater, prolific_pid="pilot-P9")
    Rating.objects.create(sample=sample, rater=rater, score=3, story_version=2)

    def counted(**extra) -> int:
        params = {"study": "pilot", **extra}
        return researcher_client.get("/dashboards/agreement.json", params).json()["n_ratings"]

    assert counted() == N_OWN - 6 + 1  # the story's two senses x 3 old ratings out, S4 in
    assert counted(include_outdated="1") == N_OWN + 1
    everyone = researcher_client.get("/dashboards/agreement.json").json()["n_ratings"]
    assert everyone == 30 + N_OWN + 6  # the reference labels: S4's rating is not one of them
