"""Researcher pages: create with the paper's defaults, run, watch, toggle exclusions, export."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from annotations.models import Split
from studies import services
from studies.models import Participant, Slot, Study

from .helpers import open_study, pid, qualify, unrated_setups

pytestmark = pytest.mark.django_db


def _one_sample_per_setup():
    samples = unrated_setups(4)
    return [s for s in samples if int(s.dataset_id) % 6 == 0]


def _rate(participant: Participant, sample_score: int, check_score: int) -> None:
    from studies.selectors import batch_items

    checks = set(participant.attention_answers.values_list("position", flat=True))
    for item in batch_items(participant):
        score = check_score if item.position in checks else sample_score
        services.item_save(
            participant=participant, position=item.position, answer=services.Answer(score=score)
        )


def _stats(html: str, sample_pk: int) -> tuple[str, str, str]:
    row = re.search(rf'<tr id="sample-{sample_pk}">(.*?)</tr>', html, re.S).group(1)
    cells = re.findall(r'<td class="num (n|mean|sd)">([^<]*)</td>', row)
    return tuple(value for _, value in cells)


def test_a_failed_check_leaves_the_mean_and_the_toggle_brings_it_back(researcher_client):
    samples = _one_sample_per_setup()
    study = open_study(samples=samples, per_participant=4, ratings=2)
    good = services.participant_arrive(study=study, pid=pid(1))
    bad = services.participant_arrive(study=study, pid=pid(2))
    for participant in (good, bad):
        qualify(participant)
    _rate(good, 5, good.attention_answers.get().question.expected)
    _rate(bad, 1, 3)  # 3 is outside every default check's tolerance
    url = reverse("studies:detail", args=[study.pk])
    page = researcher_client.get(url).content.decode()
    assert _stats(page, samples[0].pk) == ("1", "5.00", "")
    assert bad.rater.pseudonym in page.split('id="failures"')[1]
    assert bad.prolific_pid not in page.split('id="failures"')[1]
    assert Slot.objects.filter(study=study, status="free").count() == 4  # replacements
    toggle = reverse("studies:toggle", args=[study.pk, bad.pk])
    researcher_client.post(toggle, {"confirm": "include", "reason": "checked by hand"})
    page = researcher_client.get(url).content.decode()
    assert _stats(page, samples[0].pk) == ("2", "3.00", "2.83")
    assert Slot.objects.filter(study=study, status="free").count() == 0
    researcher_client.post(toggle, {"confirm": "exclude", "reason": "all 1s"})
    page = researcher_client.get(url).content.decode()
    assert _stats(page, samples[0].pk) == ("1", "5.00", "")


def test_the_create_form_is_prefilled_with_the_papers_defaults(researcher_client):
    page = researcher_client.get(reverse("studies:create")).content.decode()
    assert 'name="ratings_per_sample" value="5"' in page
    assert 'name="samples_per_participant" value="30"' in page
    assert "Introduction to the Plausibility Annotation Task" in page


def test_a_researcher_creates_opens_and_pauses_a_study_in_the_site(researcher_client):
    unrated_setups(4)
    split = Split.objects.get(name="study")
    form = {
        "title": "Pilot",
        "slug": "pilot",
        "ratings_per_sample": 5,
        "samples_per_participant": 4,
        "attention_checks_per_batch": 1,
        "time_limit_minutes": 45,
        "completion_code": "C0MPLETE",
        "screenout_code": "SCREEN00",
        "prolific_completion_url": "https://app.prolific.com/submissions/complete?cc={code}",
        "guidelines": "Rate.",
        "split": split.pk,
        "endings": "with",
        "homonyms": "",
    }
    response = researcher_client.post(reverse("studies:create"), form)
    study = Study.objects.get(slug="pilot")
    assert response["Location"] == reverse("studies:detail", args=[study.pk])
    assert study.samples.count() == 16
    assert study.check_questions.filter(in_qualification=True).count() == 8
    assert study.check_questions.filter(as_attention_check=True).count() == 3
    researcher_client.post(reverse("studies:action", args=[study.pk, "open"]))
    study.refresh_from_db()
    assert study.status == "open" and study.slots.count() == 16 * 5
    page = researcher_client.get(reverse("studies:detail", args=[study.pk])).content.decode()
    assert "/s/pilot/?PROLIFIC_PID={{%PROLIFIC_PID%}}&amp;STUDY_ID={{%STUDY_ID%}}" in page
    researcher_client.post(reverse("studies:action", args=[study.pk, "pause"]))
    study.refresh_from_db()
    assert study.status == "paused"


def test_opening_an_impossible_study_shows_the_reason(researcher_client):
    study = services.study_create(
        title="t", slug="t", samples=unrated_setups(3), samples_per_participant=30
    )
    response = researcher_client.post(
        reverse("studies:action", args=[study.pk, "open"]), follow=True
    )
    assert "only 3 setups" in response.content.decode()
    study.refresh_from_db()
    assert study.status == "draft"


def test_the_export_is_ambistory_json_with_valid_ratings_only(researcher_client):
    samples = _one_sample_per_setup()
    study = open_study(samples=samples, per_participant=4, ratings=2)
    good = services.participant_arrive(study=study, pid=pid(1))
    bad = services.participant_arrive(study=study, pid=pid(2))
    qualify(good)
    qualify(bad)
    _rate(good, 4, good.attention_answers.get().question.expected)
    _rate(bad, 1, 3)
    response = researcher_client.get(reverse("studies:export", args=[study.pk]))
    data = json.loads(b"".join(response.streaming_content))
    assert len(data) == 4
    assert all(record["choices"] == [4] for record in data.values())
    from annotations.importers import parse_ambistory

    assert len(parse_ambistory(data)) == 4  # the import format: the official tools read it


def test_samples_short_of_ratings_are_listed(researcher_client):
    study = open_study(4, per_participant=4, ratings=2)
    page = researcher_client.get(reverse("studies:detail", args=[study.pk])).content.decode()
    link = r'samples short of ratings: <a href="\?short=1#samples"><strong id="n-short">24<'
    assert re.search(link, page)


def test_a_researcher_edits_settings_and_check_tolerances_in_the_site(researcher_client):
    study = services.study_create(title="t", slug="t", samples=unrated_setups(4))
    url = reverse("studies:edit", args=[study.pk])
    page = researcher_client.get(url)
    assert page.status_code == 200
    form = page.context["form"]
    formset = page.context["formset"]
    data = {name: value for name, value in form.initial.items() if value is not None}
    data.update({"title": "Renamed", "endings": "all", "split": "", "homonyms": "", "limit": ""})
    data.pop("id", None)
    data.update({f"q-{k}": v for k, v in formset.management_form.initial.items()})
    data["q-TOTAL_FORMS"] = len(formset.initial_forms)  # leave the blank extra form out
    for i, sub in enumerate(formset.initial_forms):
        for name in sub.fields:
            value = {"id": sub.instance.pk, "study": study.pk}.get(name)
            value = getattr(sub.instance, name, None) if value is None else value
            if value is not None and value is not False and name != "DELETE":
                data[f"q-{i}-{name}"] = value
    data["q-0-tolerance"] = 0
    response = researcher_client.post(url, data)
    assert response.status_code == 302, response.context["formset"].errors
    study.refresh_from_db()
    assert study.title == "Renamed" and study.samples.count() == 24
    first = study.check_questions.order_by("order", "id").first()
    assert (first.homonym, first.tolerance) == ("hard", 0)
