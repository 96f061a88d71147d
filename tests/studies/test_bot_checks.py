"""RAW-C's bot checks (``studies.bot_checks``, ``Study.bot_checks``): the pool and its draw,
the grading, and the page after consent that asks them (a wrong answer screens out)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from annotations.models import TaskKind
from studies import bot_checks
from studies.models import Participant, Slot
from studies.qualification import participant_bots

from .helpers import BOT_ANSWERS, open_study, pid
from .kinds_helpers import open_kind_study, rawc_samples
from .test_participant_views import arrive, moved_on, next_url


def test_the_pool_has_one_right_option_among_four_per_question():
    assert len({q.key for q in bot_checks.POOL}) == len(bot_checks.POOL) == bot_checks.MAX_CHECKS
    for q in bot_checks.POOL:
        assert len(set(q.options)) == 4 and q.options.count(q.answer) == 1
    paper = bot_checks.BY_KEY["swim"]  # RAW-C's own example
    assert (paper.text, paper.answer) == ("Which of the following is not a place to swim?", "Chair")


def test_a_draw_is_distinct_questions_with_shuffled_options_fixed_by_its_seed():
    drawn = bot_checks.draw(3, b"seed")
    assert len({d.key for d in drawn}) == 3
    assert all(sorted(d.options) == sorted(d.question.options) for d in drawn)
    assert bot_checks.draw(3, b"seed") == drawn  # a reload shows the same
    draws = {tuple((d.key, d.options) for d in bot_checks.draw(2, bytes([n]))) for n in range(30)}
    assert len(draws) > 10  # participants get different questions and orders
    assert bot_checks.draw(0, b"seed") == [] and len(bot_checks.draw(99, b"s")) == 10


def test_grading_needs_every_right_option():
    drawn = bot_checks.draw(2, b"seed")
    right = {d.key: d.question.answer for d in drawn}
    assert bot_checks.grade(drawn, right)
    first = drawn[0]
    wrong = next(o for o in first.options if o != first.question.answer)
    assert not bot_checks.grade(drawn, {**right, first.key: wrong})
    assert not bot_checks.grade(drawn, {drawn[1].key: right[drawn[1].key]})  # one missing
    assert not bot_checks.grade(drawn, {**right, first.key: "Banana"})  # not an option
    assert bot_checks.chosen(drawn, {**right, first.key: "Banana"})[first.key] is None
    assert bot_checks.grade([], {})


@pytest.mark.django_db
def test_a_relatedness_study_asks_two_bot_checks_and_a_plausibility_study_none():
    assert open_kind_study(TaskKind.RELATEDNESS, rawc_samples()).bot_checks == 2
    assert open_study(2, per_participant=2, ratings=1, slug="plain").bot_checks == 0


def _consented(client):
    study = open_kind_study(TaskKind.RELATEDNESS, rawc_samples())
    assert moved_on(arrive(client, study, pid(1)))
    participant = Participant.objects.get(prolific_pid=pid(1))
    return study, participant, reverse("participate:qualification", args=[study.slug])


@pytest.mark.django_db
def test_the_welcome_page_says_so(client):
    study = open_kind_study(TaskKind.RELATEDNESS, rawc_samples())
    page = client.get(reverse("participate:arrive", args=[study.slug]), {"PROLIFIC_PID": pid(1)})
    assert "2 short questions check that a person is taking part" in page.content.decode()
    plain = open_study(2, per_participant=2, ratings=1, slug="plain")
    page = client.get(reverse("participate:arrive", args=[plain.slug]), {"PROLIFIC_PID": pid(1)})
    assert 'id="bot-checks-note"' not in page.content.decode()


@pytest.mark.django_db
def test_the_page_after_consent_asks_the_participants_bot_checks(client):
    study, participant, url = _consented(client)
    html = client.get(url).content.decode()
    drawn = participant_bots(participant)
    assert len(drawn) == 2 and 'id="bot-checks"' in html
    for d in drawn:
        assert d.question.text in html
        shown = re.findall(rf'name="bot_{d.key}" value="([^"]+)"', html)
        assert shown == list(d.options)  # in this participant's order
    assert "no qualification test" in html


@pytest.mark.django_db
def test_right_answers_let_the_participant_start(client):
    study, participant, url = _consented(client)
    answers = {f"bot_{d.key}": d.question.answer for d in participant_bots(participant)}
    response = client.post(url, answers)
    assert moved_on(response) and "/rate/" in next_url(response)
    participant.refresh_from_db()
    assert participant.status == Participant.Status.QUALIFIED
    recorded = {k: v for k, v in participant.qualification_answers.items() if k.startswith("bot:")}
    assert recorded == {f"bot:{d.key}": d.question.answer for d in participant_bots(participant)}


@pytest.mark.django_db
def test_a_wrong_bot_answer_screens_the_participant_out_and_frees_the_batch(client):
    study, participant, url = _consented(client)
    drawn = participant_bots(participant)
    answers = {f"bot_{d.key}": d.question.answer for d in drawn}
    wrong = next(o for o in drawn[1].options if o != drawn[1].question.answer)
    answers[f"bot_{drawn[1].key}"] = wrong
    response = client.post(url, answers)
    assert moved_on(response)
    participant.refresh_from_db()
    assert participant.status == Participant.Status.SCREENED_OUT
    assert participant.qualification_answers[f"bot:{drawn[1].key}"] == wrong
    assert not Slot.objects.filter(participant=participant).exists()  # given back
    page = client.get(next_url(response)).content.decode()
    assert study.screenout_code in page


@pytest.mark.django_db
def test_an_unanswered_bot_check_asks_again_and_changes_nothing(client):
    study, participant, url = _consented(client)
    first = participant_bots(participant)[0]
    response = client.post(url, {f"bot_{first.key}": first.question.answer})
    assert (
        response.status_code == 200 and "Please answer every question" in response.content.decode()
    )
    participant.refresh_from_db()
    assert participant.status == Participant.Status.STARTED


@pytest.mark.django_db
def test_the_preview_asks_and_grades_the_bot_checks(researcher_client):
    study = open_kind_study(TaskKind.RELATEDNESS, rawc_samples())
    url = reverse("studies:preview_qualification", args=[study.pk])
    html = researcher_client.get(url).content.decode()
    keys = re.findall(r'data-bot="([a-z]+)"', html)
    assert len(keys) == 2
    wrong = {
        f"bot_{k}": next(o for o in bot_checks.BY_KEY[k].options if o != BOT_ANSWERS[k])
        for k in keys
    }
    assert study.screenout_code in researcher_client.post(url, wrong).content.decode()
    right = {f"bot_{k}": BOT_ANSWERS[k] for k in keys}
    response = researcher_client.post(url, right)
    assert response.status_code == 302 and "/preview/rate/0/" in response["Location"]


@pytest.mark.django_db
@pytest.mark.parametrize(("given", "kept"), [("", 2), ("0", 0), ("3", 3)])
def test_the_study_form_takes_the_number_of_bot_checks_or_the_kinds_default(
    researcher, given, kept
):
    from studies import services
    from studies.forms import StudyForm

    split = rawc_samples()[0].split
    data = {
        "title": "Pairs", "slug": "pairs", "task_kind": TaskKind.RELATEDNESS, "split": split.pk,
        "endings": "all", "ratings_per_sample": 2, "samples_per_participant": 2,
        "time_limit_minutes": 30, "completion_code": "C", "screenout_code": "S",
        "guidelines": "g", "bot_checks": given,
    }  # fmt: skip
    form = StudyForm(data)
    assert form.is_valid(), form.errors
    assert services.study_create(samples=form.samples(), **form.settings()).bot_checks == kept
    assert not StudyForm({**data, "bot_checks": "11"}).is_valid()  # the pool holds 10
