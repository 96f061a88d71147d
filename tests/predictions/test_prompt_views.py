"""The prompt preview pages: /prompts/, /prompts/<id>/, /prompts/<id>.json."""

from __future__ import annotations

import html
import json

import pytest

from predictions.prompts import get_prompt, render
from predictions.web.prompt_views import sample_dict
from tests.factories import ambistory_sample, ambistory_setup

pytestmark = pytest.mark.django_db


@pytest.fixture
def split(db):
    from annotations.importers import ambistory_import, parse_ambistory
    from annotations.models import Split

    data = {**ambistory_setup(0), **ambistory_setup(6, homonym="pitch")}
    data["12"] = ambistory_sample("12", homonym="lone", sentence="A lone word.")
    ambistory_import(samples=parse_ambistory(data), split="dev")
    return Split.objects.get(name="dev")


def shown_messages(response) -> list[str]:
    """The rendered message texts as the page shows them."""
    page = response.content.decode()
    parts = page.split('<pre class="prompt-text">')[1:]
    return [html.unescape(part.split("</pre>")[0]) for part in parts]


def test_it_lists_every_prompt_version_for_researchers(researcher_client):
    response = researcher_client.get("/prompts/")
    assert response.status_code == 200
    page = response.content.decode()
    for prompt_id in (
        "ambistory-b3-zeroshot-v1",
        "ambistory-b3-4shot-v1",
        "ambistory-comparative-v1",
    ):
        assert f'href="/prompts/{prompt_id}/"' in page
    assert 'href="/prompts/"' in page  # the nav link


def test_it_keeps_outsiders_and_anonymous_visitors_out(client, outsider_client, split):
    for who in (client, outsider_client):
        for url in (
            "/prompts/",
            "/prompts/ambistory-b3-4shot-v1/",
            "/prompts/ambistory-b3-4shot-v1.json",
        ):
            response = who.get(url)
            assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_it_shows_the_exact_messages_for_the_chosen_sample(researcher_client, split):
    from annotations.models import Sample

    sample = Sample.objects.with_related().get(split=split, dataset_id="8")
    url = f"/prompts/ambistory-b3-4shot-v1/?split={split.pk}&sample=8"

    response = researcher_client.get(url)

    assert response.status_code == 200
    expected = render(get_prompt("ambistory-b3-4shot-v1"), sample_dict(sample))
    assert shown_messages(response)[0] == expected[0]["content"]
    assert '"pitch"' in expected[0]["content"] and "dev #8" in response.content.decode()


def test_it_shows_the_first_sample_when_none_is_chosen(researcher_client, split):
    response = researcher_client.get("/prompts/ambistory-b3-zeroshot-v1/")
    assert 'id="shown-sample">ambistory/dev #0<' in response.content.decode()


def test_the_comparative_preview_shows_both_senses_of_the_story(researcher_client, split):
    from annotations.models import Sample

    response = researcher_client.get(
        f"/prompts/ambistory-comparative-v1/?split={split.pk}&sample=3"
    )

    samples = Sample.objects.with_related().filter(split=split, dataset_id__in=["2", "3"])
    a, b = (sample_dict(s) for s in samples.order_by("position"))
    system, user = render(get_prompt("ambistory-comparative-v1"), a, b)
    assert shown_messages(response)[:2] == [system["content"], user["content"]]
    assert "with the other sense, #2" in response.content.decode()


def test_the_comparative_preview_explains_a_story_without_its_other_sense(researcher_client, split):
    response = researcher_client.get(
        f"/prompts/ambistory-comparative-v1/?split={split.pk}&sample=12"
    )
    assert 'id="no-render"' in response.content.decode()


def test_an_unknown_prompt_or_sample_is_404(researcher_client, split):
    assert researcher_client.get("/prompts/nope-v1/").status_code == 404
    assert researcher_client.get("/prompts/ambistory-b3-zeroshot-v1/?sample=999").status_code == 404


def test_the_json_download_is_the_stored_file(researcher_client):
    response = researcher_client.get("/prompts/ambistory-b3-4shot-v1.json")
    assert response.status_code == 200
    assert json.loads(response.content)["id"] == "ambistory-b3-4shot-v1"
    assert "attachment" in response["Content-Disposition"]


def test_the_page_works_before_any_data_is_imported(researcher_client):
    response = researcher_client.get("/prompts/ambistory-b3-zeroshot-v1/")
    assert response.status_code == 200 and "No samples yet" in response.content.decode()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_researcher_picks_a_sample_and_sees_its_prompt(live_server, page, researcher, split):
    from tests.conftest import screenshot

    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", "rita")
    page.fill("input[name=password]", "rita-password")
    with page.expect_navigation():
        page.click("button[type=submit], input[type=submit]")
    page.goto(f"{live_server.url}/prompts/")
    with page.expect_navigation():
        page.click("text=ambistory-b3-zeroshot-v1")
    page.fill("input[name=sample]", "9")
    with page.expect_navigation():
        page.click("button:has-text('Show')")

    assert page.inner_text("#shown-sample") == "ambistory/dev #9"
    text = page.inner_text("#preview pre.prompt-text")
    assert "***He stopped at the pitch.*** He counted the money he withdrew." in text
    screenshot(page, "prompt-preview")
