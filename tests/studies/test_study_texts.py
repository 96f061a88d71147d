"""Texts generated from a study's settings (issue 28): the guidelines' counts, the item noun
of each task kind, the number of attention checks per kind, a check story that is not the
qualification story, the time limits on the welcome page, and the scale's words."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotations.models import TaskKind
from studies import lists, services, study_texts
from studies.forms import StudyForm
from studies.models import Participant, Slot, Study

from .helpers import open_study, pid, qualify, unrated_setups
from .kinds_helpers import fool_samples, open_kind_study, rawc_samples
from .test_participant_views import arrive, arrive_url, qualify_by_post

pytestmark = pytest.mark.django_db


def _writing_study(activity: str, per: int) -> Study:
    return services.study_create(
        title="Writing",
        slug=f"w-{activity}",
        samples=[],
        activity=activity,
        samples_per_participant=per,
        attention_checks_per_batch=0,
        guidelines="You have to write {items} to clear the task.",
    )


def test_the_placeholders_name_each_kinds_items_and_the_studys_counts():
    plausibility = open_study(4, per_participant=3, checks=1, minutes=45, slug="p")
    text = "Each annotator is assigned {items}; {checks}; {time_limit}; {qualification_time}."
    assert study_texts.filled(text, plausibility) == (
        "Each annotator is assigned 3 samples; 1 attention check; 45 minutes; 10 minutes."
    )
    relatedness = open_kind_study(TaskKind.RELATEDNESS, rawc_samples(12), per_participant=1)
    assert study_texts.filled("{items}, {checks}", relatedness) == "1 pair, 2 attention checks"
    Study.objects.filter(pk=relatedness.pk).update(slug="r")
    choice = open_kind_study(TaskKind.SENSE_CHOICE, fool_samples(), per_participant=2)
    assert study_texts.filled("{items}, {checks}", choice) == "2 sentences, no attention check"
    assert study_texts.filled("{items}", _writing_study("sentences", 2)) == "2 sentences"
    assert study_texts.filled("{items}", _writing_study("endings", 1)) == "1 ending"
    assert study_texts.filled("{unknown} {items", plausibility) == "{unknown} {items"


def test_the_default_guidelines_say_the_studys_own_batch_size(client):
    study = open_study(4, per_participant=3, slug="five")
    page = client.get(arrive_url("five", pid(1))).content.decode()
    assert "Each annotator is assigned 3 samples." in page
    assert "30 samples" not in page and "{items}" not in page
    guidelines = client.get(reverse("participate:guidelines", args=["five"])).content.decode()
    assert "Each annotator is assigned 3 samples." in guidelines
    assert "{items}" in Study.objects.get(pk=study.pk).guidelines  # filled where shown


def test_uploaded_lists_set_the_number_of_items_the_welcome_page_names(client):
    """Lists uploaded shorter than the samples-per-participant setting: the welcome page,
    its guidelines and its estimate name the list's length, the number actually rated."""
    samples = unrated_setups(4)
    study = services.study_create(
        title="t",
        slug="up",
        samples=samples,
        assignment="lists",
        ratings_per_sample=2,
        samples_per_participant=30,
        attention_checks_per_batch=1,
    )
    ids = [s.dataset_id for s in samples]
    lists.lists_upload(
        study=study, text=f"{ids[0]},{ids[6]},{ids[12]}\n{ids[1]},{ids[7]},{ids[13]}\n"
    )
    study = services.study_open(study=study)
    page = client.get(arrive_url("up", pid(1))).content.decode()
    assert '<strong id="n-samples">3 samples</strong>' in page
    assert "(4 stories in all)" in page and "Each annotator is assigned 3 samples." in page
    assert "30 samples" not in page and "about <strong>9 minutes" in page
    participant = services.participant_arrive(study=study, pid=pid(2))
    assert Slot.objects.filter(participant=participant).count() == 3


def test_lists_of_two_lengths_are_named_as_a_range():
    samples = unrated_setups(4)
    study = services.study_create(title="t", slug="two", samples=samples, assignment="lists")
    # a draft without lists: opening makes 6 lists of 4 (one sample per story each)
    assert study_texts.filled("{items}", study) == "4 samples"
    ids = [s.dataset_id for s in samples]
    lists.lists_upload(study=study, text=f"{ids[0]},{ids[6]},{ids[12]}\n{ids[1]},{ids[7]}\n")
    assert study_texts.filled("{items}", Study.objects.get(pk=study.pk)) == "2 to 3 samples"


def test_writing_guidelines_say_how_many_sentences_and_endings(client):
    from writing.services import writing_study_create

    for activity, per, expected in (
        ("sentences", 2, "You have to write 2 sentences to clear the task."),
        ("endings", 3, "Each writer is assigned up to 3 endings."),
    ):
        study = writing_study_create(
            activity=activity, title="W", slug=f"w{activity}", samples_per_participant=per
        )
        Study.objects.filter(pk=study.pk).update(status=Study.Status.OPEN)
        page = client.get(reverse("participate:guidelines", args=[study.slug])).content.decode()
        assert expected in page
        assert "five sentences" not in page and "around 20" not in page


def test_the_guidelines_migration_replaces_only_the_default_sentences():
    from importlib import import_module

    from django.apps import apps

    migration = import_module("studies.migrations.0011_guideline_placeholders")
    study = open_study(4, slug="old")
    old = "Intro. Each annotator is assigned 30 samples. You have to write five sentences."
    Study.objects.filter(pk=study.pk).update(guidelines=old)
    migration.forwards(apps, None)
    assert Study.objects.get(pk=study.pk).guidelines == (
        "Intro. Each annotator is assigned {items}. You have to write five sentences."
    )
    migration.backwards(apps, None)
    assert Study.objects.get(pk=study.pk).guidelines == old


def test_relatedness_pages_call_an_item_a_pair(client):
    study = open_kind_study(TaskKind.RELATEDNESS, rawc_samples(12), per_participant=2)
    arrive(client, study, pid(3))
    qualify_by_post(client, study)
    page = client.get(reverse("participate:rate", args=[study.slug, 0])).content.decode()
    assert "Pair 1 of 4" in page and "Finished Pairs: 0/4" in page
    assert "Sample 1" not in page and "Finished Samples" not in page
    assert "Same meaning" in page  # the scale's words under the numbers


def test_the_done_page_names_the_kinds_items(client, researcher_client):
    study = open_kind_study(TaskKind.RELATEDNESS, rawc_samples(12), per_participant=2)
    arrive(client, study, pid(4))
    Participant.objects.filter(study=study).update(status=Participant.Status.FINISHED)
    page = client.get(reverse("participate:done", args=[study.slug])).content.decode()
    assert "You have finished all pairs." in page and "all samples" not in page
    preview = researcher_client.get(reverse("studies:preview_done", args=[study.pk]))
    assert "You have finished all pairs." in preview.content.decode()


def test_plausibility_pages_keep_the_papers_words_and_show_the_scale_in_words(client):
    study = open_study(4, per_participant=2, slug="words")
    arrive(client, study, pid(4))
    page = client.get(reverse("participate:qualification", args=["words"])).content.decode()
    assert page.count('<span class="word" aria-hidden="true">Not plausible</span>') == 4
    qualify_by_post(client, study)
    page = client.get(reverse("participate:rate", args=["words", 0])).content.decode()
    assert "Sample 1 of 3" in page and "Finished Samples: 0/3" in page
    for word in ("Not plausible", "Conceivable", "One of several", "Most plausible"):
        assert f'<span class="word" aria-hidden="true">{word}</span>' in page


def _form(kind: str, split, **extra) -> StudyForm:
    data = {
        "title": kind,
        "slug": kind.replace("_", "-"),
        "task_kind": kind,
        "split": split.pk,
        "endings": "all",
        "ratings_per_sample": 1,
        "samples_per_participant": 1,
        "attention_checks_per_batch": "",
        "time_limit_minutes": 30,
        "completion_code": "C",
        "screenout_code": "S",
        "guidelines": "g",
        **extra,
    }
    return StudyForm(data)


@pytest.mark.parametrize(
    ("kind", "checks"),
    [(TaskKind.PLAUSIBILITY, 1), (TaskKind.RELATEDNESS, 2), (TaskKind.SENSE_CHOICE, 0)],
)
def test_an_empty_number_of_checks_on_the_form_is_the_kinds_default(kind, checks, researcher):
    samples = {
        TaskKind.PLAUSIBILITY: lambda: unrated_setups(1),
        TaskKind.RELATEDNESS: lambda: rawc_samples(4),
        TaskKind.SENSE_CHOICE: fool_samples,
    }[kind]()
    form = _form(kind, samples[0].split)
    assert form.is_valid(), form.errors
    study = services.study_create(samples=form.samples(), by=researcher, **form.settings())
    assert study.attention_checks_per_batch == checks
    chosen = _form(kind, samples[0].split, slug="chosen", attention_checks_per_batch=3)
    assert chosen.is_valid() and chosen.settings()["attention_checks_per_batch"] == 3


def test_the_new_study_form_leaves_the_number_of_checks_to_the_kind(researcher_client):
    page = researcher_client.get(reverse("studies:create")).content.decode()
    assert 'name="attention_checks_per_batch" min="0"' in page
    assert 'name="attention_checks_per_batch" value=' not in page
    assert "relatedness 2, the RAW-C paper" in page


def test_the_attention_check_is_never_a_qualification_story():
    study = open_study(8, per_participant=2, checks=2, slug="checks")
    tested = {
        (q.precontext, q.sentence) for q in study.check_questions.filter(in_qualification=True)
    }
    assert len(tested) == 4
    for n in range(4):
        participant = services.participant_arrive(study=study, pid=pid(n))
        qualify(participant)
        shown = [
            (a.question.precontext, a.question.sentence)
            for a in participant.attention_answers.all()
        ]
        assert len(shown) == 2 and not set(shown) & tested


def _limits(page: str) -> dict[str, str]:
    import re

    return dict(re.findall(r'<li data-limit="(\w+)">([^<]+)</li>', page))


def test_the_welcome_page_lists_the_hold_and_the_time_limit(client):
    open_study(4, per_participant=2, minutes=45, slug="limits", qualification_minutes=7)
    limits = _limits(client.get(arrive_url("limits", pid(5))).content.decode())
    assert list(limits) == ["hold", "study"]
    assert limits["hold"].startswith("7 minutes from when you agree below to answer the qual")
    assert limits["study"].startswith("45 minutes in all from when you agree below to answer")


def test_the_welcome_page_lists_a_writing_studys_limits(client):
    from writing.services import writing_study_create

    study = writing_study_create(
        activity="sentences", title="W", slug="wlimits", time_limit_minutes=20
    )
    Study.objects.filter(pk=study.pk).update(status=Study.Status.OPEN, qualification_minutes=3)
    limits = _limits(client.get(arrive_url("wlimits", pid(6))).content.decode())
    assert limits["hold"].startswith("3 minutes from when you agree below to answer the")
    assert limits["study"].startswith("20 minutes in all from when you agree below to write")


def test_a_hold_as_long_as_the_time_limit_is_not_listed_twice(client):
    open_study(4, per_participant=2, minutes=10, slug="one", qualification_minutes=10)
    assert list(_limits(client.get(arrive_url("one", pid(7))).content.decode())) == ["study"]


def test_a_study_without_a_test_asks_for_start_within_the_hold(client):
    study = open_kind_study(TaskKind.SENSE_CHOICE, fool_samples(), per_participant=2)
    limits = _limits(client.get(arrive_url(study.slug, pid(8))).content.decode())
    assert "to press Start on the next page" in limits["hold"]


def test_the_preview_welcome_page_lists_the_limits_too(researcher_client):
    study = open_study(4, per_participant=2, minutes=30, slug="prev")
    page = researcher_client.get(reverse("studies:preview", args=[study.pk]))
    assert list(_limits(page.content.decode())) == ["hold", "study"]


def test_the_text_corrected_notice_is_an_alert(client):
    """The notice is in an alert region, so a screen reader announces it: in the page the
    script swaps in (an inserted alert is announced) and in the page a plain post leads to."""
    from studies.models import Slot
    from studies.text_corrections import sample_texts_correct

    study = open_study(1, per_participant=1, ratings=1, checks=0, slug="notice")
    arrive(client, study, pid(9))
    qualify_by_post(client, study)
    url = reverse("participate:rate", args=["notice", 0])
    client.get(url)
    sample = Slot.objects.get(participant__prolific_pid=pid(9)).sample
    notice = '<span role="alert">The text of this item has just been corrected'
    sample_texts_correct(study=study, sample=sample, texts={"sentence": "They followed it."})
    answer = {"score": 4, "comment": "", "text_version": "1.1.1"}
    swapped = client.post(url, answer, headers={"X-Rating-Page": "1"}).content.decode()
    assert notice in swapped
    sample_texts_correct(study=study, sample=sample, texts={"sentence": "They left."})
    answer["text_version"] = "2.1.1"
    assert client.post(url, answer).status_code == 303
    assert notice in client.get(url).content.decode()
