"""The leaderboard and the setup view draw their charts in real headless Chromium."""

from __future__ import annotations

import re

import pytest

from tests.conftest import CONFORMANCE, screenshot

CHART_READY = """(id) => {
  const canvas = document.getElementById(id);
  if (!canvas || typeof Chart === "undefined") return false;  // the script may still load
  return canvas.width > 0 && canvas.height > 0 && !!Chart.getChart(canvas);
}"""
CELLS_READY = """() => {
  const all = [...document.querySelectorAll('canvas.hist')];
  if (typeof Chart === "undefined") return false;  // the script may still load
  return all.length === 6 && all.every((c) => c.width > 0 && Chart.getChart(c));
}"""


def axis_titles(page, canvas_id: str) -> list[str]:
    return page.evaluate(
        "(id) => { const s = Chart.getChart(document.getElementById(id)).options.scales;"
        " return [s.x.title.text, s.y.title.text]; }",
        canvas_id,
    )


def log_in(page, live_server, next_url="/dashboards/leaderboard/"):
    page.goto(f"{live_server.url}/accounts/login/?next={next_url}")
    page.fill("input[name=username]", "rita")
    page.fill("input[name=password]", "rita-password")
    page.click("button[type=submit]")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_leaderboard_and_setup_view_render_their_charts(
    live_server, page, researcher, dev_json
):
    from annotations.importers import ambistory_import, parse_ambistory
    from annotations.models import Split
    from predictions.io.importers import predictions_import

    ambistory_import(samples=parse_ambistory(dev_json), split="dev")
    split = Split.objects.get(name="dev")
    for name in ("pred_random.jsonl", "pred_boundary.jsonl"):
        with open(CONFORMANCE / name, encoding="utf-8") as handle:
            predictions_import(split=split, name=name, lines=handle)
    log_in(page, live_server)
    page.wait_for_selector("#leaderboard")
    page.wait_for_function(CHART_READY, arg="chart-labels")
    page.wait_for_function(CHART_READY, arg="chart-scatter")
    page.wait_for_function(  # the bootstrap intervals arrived from their JSON endpoint
        "() => /[0-9]/.test(document.querySelector('#leaderboard .ci-accuracy').textContent)"
    )
    assert "0.44727891156462585" in page.inner_text("#leaderboard")
    assert "1000 bootstrap replicates" in page.inner_text("#leaderboard-boot")
    assert page.get_attribute("#leaderboard .ci-accuracy", "title").startswith("1000 bootstrap")
    check_the_leaderboard_charts(page)
    check_the_setup_view(page, live_server, split)


def check_the_leaderboard_charts(page) -> None:
    points = page.evaluate(
        "() => Chart.getChart(document.getElementById('chart-scatter'))"
        ".data.datasets[0].data.length"
    )
    assert points > 0
    # not colour alone: the two sides of the band have their own point style and legend
    styles = page.evaluate(
        "() => Chart.getChart(document.getElementById('chart-scatter')).data.datasets"
        ".slice(0, 2).map((d) => [d.label, d.pointStyle])"
    )
    assert styles == [["● inside the band", "circle"], ["✕ outside the band", "crossRot"]]
    assert axis_titles(page, "chart-labels") == ["rounded score", "% of samples"]
    # the text alternatives: the numbers as tables, a summary as the canvas's label
    labels_table = page.text_content("[data-numbers-for=chart-labels] table")
    assert "humans" in labels_table and "pred_random.jsonl" in labels_table
    scatter_table = page.text_content("[data-numbers-for=chart-scatter] table")
    assert "inside the band" in scatter_table and "outside the band" in scatter_table
    assert "inside the band" in page.get_attribute("#chart-scatter", "aria-label")
    screenshot(page, "dashboard-leaderboard")
    page.wait_for_load_state("networkidle")


def check_the_setup_view(page, live_server, split) -> None:
    setup_id = split.samples.order_by("position").first().story.setup_id
    page.goto(f"{live_server.url}/dashboards/setups/{setup_id}/")
    page.wait_for_function(CELLS_READY)
    bars = page.evaluate(
        "() => [...document.querySelectorAll('canvas.hist')].map("
        "(c) => Chart.getChart(c).data.datasets[0].data.reduce((a, b) => a + b, 0))"
    )
    assert sum(bars) >= 30  # every rating of the six cells is drawn
    label = page.get_attribute("canvas.hist", "aria-label")
    assert label.startswith("Histogram of this cell's ratings: score 1: ")
    assert axis_titles(
        page, page.evaluate("() => document.querySelector('canvas.hist').id = 'first-hist'")
    ) == ["score", "ratings"]
    screenshot(page, "dashboard-setup")
    page.wait_for_load_state("networkidle")

    # no request may outlive the test: on SQLite the live server shares the test connection
    page.goto("about:blank")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_agreement_page_says_how_many_replicates_defined_an_interval(
    live_server, page, researcher
):
    from annotations.models import Rating
    from tests.dashboards.helpers import import_setups

    split = import_setups(3)
    first = split.samples.order_by("position").first().story.setup_id
    # one unanimous setup: a replicate that draws only it (about 1 in 27) has no variation
    Rating.objects.filter(sample__story__setup_id=first).update(score=3)
    log_in(page, live_server)
    page.wait_for_selector("#leaderboard")
    page.goto(f"{live_server.url}/dashboards/")
    page.wait_for_function("() => document.getElementById('boot-note').textContent !== ''")
    found = re.search(r"\((\d+) of 1000 replicates defined\)", page.inner_text("[data-key=alpha]"))
    assert found and 900 < int(found.group(1)) < 1000
    assert "replicates defined" not in page.inner_text("[data-key=mean_sd]")
    assert "the k-th of its 200 random splits" in page.inner_text("#boot-note")
    assert "mean over 200 random splits" in page.inner_text("#method-note")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_agreement_charts_have_axis_titles_and_their_numbers_as_tables(
    live_server, page, researcher
):
    from tests.dashboards.helpers import import_setups

    import_setups(3)
    missing = []
    page.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)
    log_in(page, live_server, "/dashboards/")
    page.wait_for_function(CHART_READY, arg="chart-histogram")
    page.wait_for_function(CHART_READY, arg="chart-homonym-sd")
    assert axis_titles(page, "chart-histogram") == ["score (1-5)", "ratings"]  # the kind's scale
    assert axis_titles(page, "chart-homonym-sd") == ["homonym", "mean SD of a sample's ratings"]
    page.click("figure:has(#chart-histogram) summary")
    rows = page.locator("[data-numbers-for=chart-histogram] tbody tr")
    assert rows.count() == 5  # one row per score, a column per series
    head = page.text_content("[data-numbers-for=chart-histogram] thead")
    assert "open-ended" in head and "ended" in head
    total = page.evaluate(
        "() => [...document.querySelectorAll('[data-numbers-for=chart-histogram] tbody td')]"
        ".reduce((a, td) => a + Number(td.textContent), 0)"
    )
    assert total == 3 * 6 * 5  # every imported rating is in the table
    assert "score 1" in page.get_attribute("#chart-histogram", "aria-label")
    assert page.locator("[data-numbers-for=chart-homonym-sd] tbody tr").count() == 3
    screenshot(page, "dashboard-agreement-numbers")
    page.wait_for_load_state("networkidle")
    page.goto("about:blank")
    assert missing == []  # the favicon included
