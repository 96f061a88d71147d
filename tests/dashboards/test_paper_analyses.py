"""The "Paper analyses" page: RAW-C's R^2 comparison and footnote 6's classifiers recomputed
from the imported data and the ratings in scope, next to the paper's figures."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.urls import reverse

from annotations.analyses_rawc import PAPER_R2, R2_TOLERANCE
from annotations.models import Rating
from annotations.rawc import RawcData, load_rawc, rawc_import

pytestmark = pytest.mark.django_db
RAWC = Path(__file__).resolve().parents[2] / "data" / "rawc"


@pytest.fixture(scope="module")
def rawc_data():
    return load_rawc(RAWC)


def test_the_full_rawc_import_reproduces_the_papers_r2_and_classifiers(
    researcher_client, rawc_data
):
    rawc_import(data=rawc_data)
    page = researcher_client.get(reverse("dashboards:papers"))
    assert page.status_code == 200
    (analyses,) = page.context["rawc"]
    assert (analyses.n_pairs, analyses.n_judgments, analyses.problem) == (672, 8624, "")
    for fit in analyses.regressions:
        assert abs(fit.r2 - PAPER_R2[fit.key]) <= R2_TOLERANCE, fit
    accuracy = {c.key: c.accuracy for c in analyses.classifiers}
    assert abs(accuracy["same_sense"] - 0.8676) < 0.0005
    assert abs(accuracy["ambiguity_type"] - 0.79) < 0.005
    html = page.content.decode()
    for shown in ("0.366", "0.660", "0.711", "0.8676", "0.7902", "143.72"):
        assert shown in html, shown
    assert 'href="/dashboards/papers/"' in html
    # Figures 2 and 3 as SVG panels with a text alternative, beside the paper's reading
    assert [c.key for c in analyses.charts] == ["figure3", "figure2-bert", "figure2-elmo"]
    assert html.count('role="img" aria-label="Homonymy, different sense: 152 pairs') == 3
    assert "Its reading (section 5.2)" in html
    # the judgment-level models: fitted when asked, then kept for the same ratings
    assert analyses.judgment_models is None and "?judgment_models=1" in html
    page = researcher_client.get(reverse("dashboards:papers"), {"judgment_models": "1"})
    (fitted,) = page.context["rawc"]
    chi2 = {m.key: m.chi2 for m in fitted.judgment_models}
    for key, paper in (("interaction", 25.45), ("bert", 36.19), ("elmo", 16.92)):
        assert chi2[key] == pytest.approx(paper, abs=0.05)
    assert 'id="rawc-judgment-models"' in page.content.decode()
    (again,) = researcher_client.get(reverse("dashboards:papers")).context["rawc"]
    assert again.judgment_models == fitted.judgment_models


def test_a_subset_of_ratings_gives_its_own_figures(researcher_client, rawc_data):
    keep = {p.key for p in rawc_data.pairs[:120]}
    judgments = [j for j in rawc_data.judgments if j.key in keep]
    rawc_import(data=RawcData(rawc_data.pairs[:120], judgments))
    (analyses,) = researcher_client.get(reverse("dashboards:papers")).context["rawc"]
    assert analyses.n_pairs == 120 and analyses.n_judgments == len(judgments)
    assert analyses.regressions[0].n == 120
    assert abs(analyses.regressions[0].r2 - PAPER_R2["distances"]) > 1e-3


def test_too_few_rated_pairs_say_so_instead_of_failing(researcher_client, rawc_data):
    keep = {p.key for p in rawc_data.pairs[:3]}
    rawc_import(
        data=RawcData(rawc_data.pairs[:3], [j for j in rawc_data.judgments if j.key in keep])
    )
    page = researcher_client.get(reverse("dashboards:papers"))
    assert page.status_code == 200
    (analyses,) = page.context["rawc"]
    assert "at least 8" in analyses.problem and analyses.regressions == []
    assert Rating.objects.count() > 0


def test_anonymous_visitors_are_sent_to_log_in(client):
    response = client.get(reverse("dashboards:papers"))
    assert response.status_code == 302


def test_the_ambistory_dev_split_shows_table_2_the_counts_and_the_rank_sum_test(
    researcher_client,
):
    import json

    from scipy.stats import ranksums

    from annotations.importers import ambistory_import, parse_ambistory

    data = json.loads((RAWC.parent / "ambistory" / "dev.json").read_text())
    ambistory_import(samples=parse_ambistory(data), split="dev")
    page = researcher_client.get(reverse("dashboards:papers"))
    assert page.status_code == 200
    (dev,) = page.context["ambistory"]
    assert dev.counts["samples"] == 588 and dev.counts["setups"] == 98
    # the SDs recomputed from the imported ratings are the published ones
    open_ = [v["stdev"] for v in data.values() if not v["ending"]]
    ended = [v["stdev"] for v in data.values() if v["ending"]]
    assert dev.sds.p == pytest.approx(ranksums(open_, ended).pvalue)
    html = page.content.decode()
    assert "Table 2" in html and f"p = {dev.sds.p:.3f}" in html
    # the comparison's figure: two panels, open-ended and ended, each described in words
    assert [p.n for p in dev.sd_chart.panels] == [len(open_), len(ended)]
    assert f'aria-label="open-ended: {len(open_)} samples, median' in html
    # section 4.2 on dev: the page's means from the imported ratings, the published averages
    from annotations.sense_frequency import frequency_correlation, read_table

    table = read_table(RAWC.parent / "wordnet" / "ambistory-sense-frequencies.tsv")
    published = [(v["homonym"], v["judged_meaning"], v["average"]) for v in data.values()]
    expected = frequency_correlation(published, table)
    assert dev.frequency.n == expected.n == 588 - expected.unmatched
    assert dev.frequency.rho == pytest.approx(expected.rho)
    assert 'id="ambistory-frequency"' in html


def test_with_a_worker_the_judgment_models_are_fitted_in_the_background(
    researcher_client, rawc_data, settings, monkeypatch
):
    """A fit takes longer than gunicorn lets a request run: with a worker sharing the cache
    (the background on) the page sends it to the worker once and says so, refreshing itself;
    the worker's request of the same page fits and keeps them; the page then shows them."""
    from django.core.cache import caches

    from dashboards import background
    from dashboards.tasks import refresh_page

    keep = {p.key for p in rawc_data.pairs[:120]}
    rawc_import(
        data=RawcData(rawc_data.pairs[:120], [j for j in rawc_data.judgments if j.key in keep])
    )
    settings.DASHBOARD_BACKGROUND_AFTER_SECONDS = 1e-9
    caches["dashboards"].clear()
    sent: list[tuple] = []
    monkeypatch.setattr(background, "enqueue", lambda *args: sent.append(args))
    url = reverse("dashboards:papers") + "?judgment_models=1"
    page = researcher_client.get(url)
    (analyses,) = page.context["rawc"]
    assert analyses.judgment_models is None and page.context["fitting"]
    html = page.content.decode()
    assert "in the background" in html and 'http-equiv="refresh"' in html
    assert len(sent) == 1 and sent[0][0] == url
    again = researcher_client.get(url)
    assert again.context["fitting"] and len(sent) == 1  # one task for these judgments
    refresh_page(*sent[0])  # what the worker runs
    (fitted,) = researcher_client.get(url).context["rawc"]
    assert fitted.judgment_models and len(sent) == 1
    (shown,) = researcher_client.get(reverse("dashboards:papers")).context["rawc"]
    assert shown.judgment_models == fitted.judgment_models
