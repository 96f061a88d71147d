"""The usage-graph pages: the word table, a word's page and its graph JSON."""

from pathlib import Path

import pytest
from django.core.management import call_command

from wug.analysis import word_summary
from wug.models import Word
from wug.texts import use_parts

WUG = Path(__file__).resolve().parents[2] / "data" / "wug"


@pytest.fixture
def words(db):
    call_command("import_wug", str(WUG / "uug" / "Aufkommen"), stdout=open("/dev/null", "w"))
    call_command("import_wug", str(WUG / "usg"), stdout=open("/dev/null", "w"))
    return Word.objects.all()


def test_the_pages_are_for_researchers_only(client, outsider_client, words):
    for url in ("/wug/", "/wug/Aufkommen/", "/wug/Aufkommen/graph.json"):
        assert client.get(url).status_code == 302
        assert outsider_client.get(url).status_code == 302


def test_the_word_table_shows_each_words_figures(researcher_client, words):
    html = researcher_client.get("/wug/").content.decode()
    summary = word_summary(Word.objects.get(name="Aufkommen"))
    row = html[html.index('data-word="Aufkommen"') :].split("</tr>")[0]
    assert f'clusters">{summary.clusters}<' in row
    assert f'loss">{summary.loss:.1f}<' in row
    assert f'jsd">{summary.change_graded:.3f}<' in row
    assert f'spearman">{summary.agreement.spearman:.3f}<' in row
    assert 'data-word="acerbus"' in html


def test_a_words_page_shows_its_figures_frequencies_and_marked_uses(researcher_client, words):
    response = researcher_client.get("/wug/Aufkommen/")
    html = response.content.decode()
    summary = response.context["summary"]
    assert f'<dd class="clusters">{summary.clusters}</dd>' in html
    assert response.context["frequency_rows"] == [
        (g, [counts.get(c, 0) for c in response.context["frequency_clusters"]])
        for g, counts in summary.frequencies.items()
    ]
    assert html.count('<mark class="wug-target">') == 50
    assert researcher_client.get("/wug/nosuchword/").status_code == 404


def test_the_graph_json_has_every_use_and_the_median_edges(researcher_client, words):
    data = researcher_client.get("/wug/Aufkommen/graph.json").json()
    assert len(data["nodes"]) == 50
    assert all(1 <= e["weight"] <= 4 for e in data["edges"])
    clustered = [n for n in data["nodes"] if n["cluster"] is not None]
    assert {n["cluster"] for n in clustered} == set(range(word_summary(words[0]).clusters))
    usg = researcher_client.get("/wug/acerbus/graph.json").json()
    assert usg["graph_type"] == "usg" and usg["edges"] == []


def test_use_parts_mark_the_target_inside_its_sentence_and_clamp_spans():
    parts = use_parts("Before. The plane flew. After.", (12, 17), (8, 23))
    assert (parts.before, parts.lead, parts.target, parts.tail, parts.after) == (
        "Before. ",
        "The ",
        "plane",
        " flew.",
        " After.",
    )
    clamped = use_parts("abc", (1, 2), (0, 4))
    assert clamped.target == "b" and clamped.after == ""
    assert use_parts("abc", (0, 1), (None, None)).tail == "bc"


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_graph_view_draws_on_a_phone(live_server, browser, researcher):
    call_command("import_wug", str(WUG / "uug" / "Aufkommen"), stdout=open("/dev/null", "w"))
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(f"{live_server.url}/accounts/login/?next=/wug/Aufkommen/")
    page.fill("input[name=username]", "rita")
    page.fill("input[name=password]", "rita-password")
    page.click("button[type=submit]")
    page.wait_for_url("**/wug/Aufkommen/")
    page.wait_for_function(
        "() => { const el = document.getElementById('wug-graph');"
        " return !!el && el.dataset.ready === '50'; }"
    )
    page.wait_for_function(
        "() => typeof Chart !== 'undefined'"
        " && !!Chart.getChart(document.getElementById('wug-frequencies'))"
    )
    # a tap on a node shows its use with the target marked
    page.evaluate(
        "() => { const cy = document.getElementById('wug-graph')._cyreg.cy;"
        " cy.nodes()[0].emit('tap'); }"
    )
    assert page.inner_text("#wug-use .wug-target")
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390
    assert errors == []
    context.close()


def lines(response) -> list[dict]:
    import json

    return [json.loads(line) for line in b"".join(response.streaming_content).splitlines()]


def test_the_api_lists_words_with_their_figures_and_exports_jsonl(researcher_client, words):
    listed = researcher_client.get("/api/v1/wug/words/").json()
    assert {w["word"] for w in listed} == {"Aufkommen", "acerbus"}
    one = researcher_client.get("/api/v1/wug/words/Aufkommen/").json()
    summary = word_summary(Word.objects.get(name="Aufkommen"))
    assert one["clusters"] == summary.clusters and one["loss"] == summary.loss
    assert one["change_graded"] == summary.change_graded
    uses = lines(researcher_client.get("/api/v1/wug/exports/uses.jsonl?word=Aufkommen"))
    assert len(uses) == 50 and uses[0]["word"] == "Aufkommen" and "context" in uses[0]
    judgments = lines(researcher_client.get("/api/v1/wug/exports/judgments.jsonl"))
    assert len(judgments) == 430 + 180
    clusters = lines(researcher_client.get("/api/v1/wug/exports/clusters.jsonl"))
    assert {c["cluster"] for c in clusters} == set(range(summary.clusters))
    scores = lines(researcher_client.get("/api/v1/wug/exports/scores.jsonl?word=acerbus"))
    assert scores[0]["graph_type"] == "usg" and scores[0]["loss"] is None
    bad = researcher_client.get("/api/v1/wug/exports/uses.jsonl?word=nope")
    assert bad.status_code == 404 and "nope" in bad.json()["detail"]
    assert researcher_client.get("/api/v1/wug/words/nope/").status_code == 404


def test_the_api_is_for_researchers_only(client, outsider_client, words):
    for url in ("/api/v1/wug/words/", "/api/v1/wug/exports/scores.jsonl"):
        assert client.get(url).status_code in (401, 403)
        assert outsider_client.get(url).status_code == 403


def test_a_researcher_queues_the_model_annotator_from_the_word_page(researcher_client, words):
    from wug.models import ModelAnnotation

    response = researcher_client.post("/wug/Aufkommen/annotate/", follow=True)
    annotation = ModelAnnotation.objects.get()
    assert annotation.word.name == "Aufkommen" and annotation.status == "queued"
    assert "queued" in response.content.decode()
    refused = researcher_client.post("/wug/acerbus/annotate/", follow=True)
    assert "usage-usage" in refused.content.decode()
    assert ModelAnnotation.objects.count() == 1
