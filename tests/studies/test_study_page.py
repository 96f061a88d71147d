"""The study page (issue 28, researcher pages): one samples table with search and a "short of
ratings" filter, places in plain words, the live JSON it polls, and the adaptive settings
with what they imply (the growth rule's numbers) on the page and the study form."""

from __future__ import annotations

import html
import re

import pytest
from django.urls import reverse

from annotations.models import Sample
from studies import monitoring, services
from studies.adaptive import SD_FLOOR, ratings_needed
from studies.models import Slot, Study
from tests.pagehtml import repeated_ids

from .helpers import open_study, pid, qualify, rate_all, unrated_setups
from .test_study_scope import rated_setups

pytestmark = pytest.mark.django_db

INTERNAL = re.compile(r"\b(free|reserved|void|slots?)\b", re.I)


def _page(client, study, query: str = "") -> str:
    return client.get(reverse("studies:detail", args=[study.pk]) + query).content.decode()


def _sample_rows(html: str) -> list[str]:
    return re.findall(r'<tr id="sample-(\d+)">', html)


def test_each_sample_is_listed_once_and_the_page_has_no_repeated_ids(researcher_client):
    study = open_study(4, per_participant=4, ratings=2)
    page = _page(researcher_client, study)
    rows = _sample_rows(page)
    assert len(rows) == len(set(rows)) == 24
    assert 'id="short-' not in page  # the second list of the same samples is gone
    assert repeated_ids(page) == []
    assert re.search(r'id="n-short">24<', page)


def test_places_are_counted_in_plain_words(researcher_client):
    study = open_study(4, per_participant=4, ratings=2)
    services.participant_arrive(study=study, pid=pid(1))
    page = _page(researcher_client, study)
    places = re.search(r'<ul class="places" id="places">(.*?)</ul>', page, re.S).group(1)
    assert 'id="places-reserved">4</strong> held by a participant who is rating now' in places
    assert 'id="places-free">44</strong> waiting for a participant' in places
    assert INTERNAL.findall(re.sub(r'id="[^"]*"', "", places)) == []


def test_search_finds_samples_by_id_homonym_and_text(researcher_client):
    samples = unrated_setups(4)
    study = open_study(samples=samples, per_participant=4, ratings=2)
    target = samples[7]  # second setup ("word1")
    by_word = _sample_rows(_page(researcher_client, study, "?q=word1"))
    assert sorted(by_word) == sorted(str(s.pk) for s in samples if "word1" in _homonym(s))
    by_id = _sample_rows(_page(researcher_client, study, f"?q=study/{target.dataset_id}"))
    assert by_id == [str(target.pk)]
    ending = target.story.ending or target.story.setup.sentence
    by_text = _sample_rows(_page(researcher_client, study, f"?q={ending[5:25]}"))
    assert str(target.pk) in by_text and len(by_text) < 24
    page = _page(researcher_client, study, "?q=no-such-text-anywhere")
    assert _sample_rows(page) == [] and "No sample matches" in page


def _homonym(sample: Sample) -> str:
    return sample.story.setup.homonym.form


def test_the_short_filter_lists_only_samples_short_of_ratings(researcher_client):
    study = open_study(4, per_participant=4, ratings=1)
    participant = services.participant_arrive(study=study, pid=pid(1))
    qualify(participant)
    rate_all(participant)
    rated = {
        str(pk)
        for pk in Slot.objects.filter(participant=participant).values_list("sample_id", flat=True)
    }
    page = _page(researcher_client, study, "?short=1")
    assert re.search(r'id="n-short">20<', page)
    shown = set(_sample_rows(page))
    assert len(shown) == 20 and not shown & rated


def test_the_live_json_has_what_the_page_updates(researcher_client):
    study = open_study(4, per_participant=4, ratings=2)
    first = Sample.objects.filter(studies=study).order_by("position").first()
    url = reverse("studies:live", args=[study.pk])
    before = researcher_client.get(url, {"ids": str(first.pk)}).json()
    assert before["n_study_ratings"] == 0 and before["n_short"] == 24
    assert before["samples"] == [
        {"id": first.pk, "n": 0, "mean": "", "sd": "", "all": 0, "outdated": 0}
    ]
    participant = services.participant_arrive(study=study, pid=pid(1))
    qualify(participant)
    rate_all(participant)
    mine = Slot.objects.filter(participant=participant).values_list("sample_id", flat=True)
    after = researcher_client.get(url, {"ids": ",".join(map(str, mine))}).json()
    assert after["n_study_ratings"] == 4 and after["status_label"] == "Open"
    assert {s["n"] for s in after["samples"]} == {1} and {s["mean"] for s in after["samples"]} == {
        "3.00"
    }
    places = {p["status"]: (p["n"], p["words"]) for p in after["places"]}
    assert places["done"] == (4, "rated")
    chips = {c["status"]: c["n"] for c in after["participants"]}
    assert chips["finished"] == 1
    page = _page(researcher_client, study)
    assert f'id="chip-finished">{chips["finished"]}<' in page  # the ids the script updates
    assert f'id="places-done">{places["done"][0]}<' in page


def test_the_live_json_refuses_malformed_ids_and_other_studies_samples(researcher_client):
    samples = unrated_setups(5)
    study = open_study(samples=samples[:24], per_participant=4, ratings=2)
    url = reverse("studies:live", args=[study.pk])
    response = researcher_client.get(url, {"ids": "1,x"})
    assert response.status_code == 400 and "ids" in response.json()["error"]
    other = samples[24]
    assert researcher_client.get(url, {"ids": str(other.pk)}).json()["samples"] == []


def test_the_live_json_is_for_researchers_only(client, outsider_client):
    study = open_study(4, per_participant=4, ratings=2)
    url = reverse("studies:live", args=[study.pk])
    assert client.get(url).status_code == 302
    assert outsider_client.get(url).status_code in (302, 403)


def _adaptive_study(**fields) -> Study:
    return open_study(
        samples=rated_setups(4),
        per_participant=4,
        ratings=5,
        adaptive=True,
        max_ratings_per_sample=9,
        target_width=1.0,
        **fields,
    )


def test_the_study_page_says_what_the_adaptive_settings_imply(researcher_client):
    study = _adaptive_study(rating_budget=150)
    page = _page(researcher_client, study)
    box = re.search(r'<div id="adaptive-outlook">(.*?)</div>', page, re.S).group(1)
    agreed = ratings_needed(0.0, minimum=5, maximum=9, target_width=1.0, sd_floor=SD_FLOOR)
    assert agreed == 7
    assert f"Even a sample whose raters all agree gets {agreed}" in box
    assert "at most 150 ratings in all for 24 samples" in box
    assert f"at least {24 * agreed} if every sample" in box and "budget runs out" in box
    found = monitoring.study_outlook(study)
    sds = monitoring.known_sds(Sample.objects.filter(studies=study))
    needs = [
        ratings_needed(sd, minimum=5, maximum=9, target_width=1.0, sd_floor=SD_FLOOR) for sd in sds
    ]
    assert len(sds) == 24 and found.expected_per_sample == pytest.approx(sum(needs) / 24)
    assert f"about {sum(needs) / 24:.1f} ratings per sample" in box
    assert 'id="rating-budget">150<' in page


@pytest.mark.parametrize("rule", ["widest", "variance"])
def test_the_study_page_says_what_the_rule_buys_and_costs(researcher_client, rule):
    study = _adaptive_study(adaptive_rule=rule)
    page = _page(researcher_client, study)
    said = re.search(r'<p id="adaptive-tradeoff">(.*?)</p>', page, re.S).group(1)
    assert html.escape(study.get_adaptive_rule_display()) in said
    assert "1.40 against 1.68" in said and "83.6% against 88.6%" in said and "86.4%" in said
    rule_words = re.search(r'<p class="muted" id="adaptive-rule">(.*?)</p>', page, re.S).group(1)
    assert ("pooled SD" in rule_words) == (rule == "variance")
    form = researcher_client.get(reverse("studies:edit", args=[study.pk])).content.decode()
    assert 'name="adaptive_rule"' in form and "neither rule ranks" in form


def test_the_study_form_shows_the_outlook_and_its_json_follows_the_fields(researcher_client):
    study = _adaptive_study()
    page = researcher_client.get(reverse("studies:edit", args=[study.pk])).content.decode()
    lines = re.search(r'<ul id="outlook-lines"[^>]*>(.*?)</ul>', page, re.S).group(1)
    assert "Even a sample whose raters all agree gets 7" in lines
    assert "at most 216 ratings in all for 24 samples" in lines
    url = reverse("studies:adaptive_outlook")
    params = {"ratings_per_sample": 3, "max_ratings_per_sample": 12, "target_width": 1.5}
    data = researcher_client.get(url, {**params, "study": study.pk}).json()
    assert data["agreed"] == ratings_needed(
        0.0, minimum=3, maximum=12, target_width=1.5, sd_floor=SD_FLOOR
    )
    assert any("at most 288 ratings in all for 24 samples" in s for s in data["sentences"])
    bad = researcher_client.get(url, {**params, "target_width": "wide"})
    assert bad.status_code == 400 and bad.json()["error"].startswith("target_width")
    new = researcher_client.get(reverse("studies:create")).content.decode()
    assert "Even a sample whose raters all agree gets 7" in new  # the defaults, no samples yet
