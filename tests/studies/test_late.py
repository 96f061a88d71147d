"""Time limits that never eat work (issue 28): the qualification page's own clock, late
qualification answers kept and graded, and a time-up page that names the limit that ended
the session (the hold before the qualification test, or the study's time limit)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from annotations.models import Rating
from studies import late, services
from studies.models import Participant, Slot

from .helpers import open_study, pid
from .test_participant_views import arrive

pytestmark = pytest.mark.django_db


def _age(minutes: float) -> None:
    Participant.objects.update(started_at=timezone.now() - timedelta(minutes=minutes))


def _answers(study, right: bool = True) -> dict[str, int]:
    questions = study.check_questions.filter(in_qualification=True)
    return {f"q{q.pk}": q.expected if right else 3 for q in questions}


def _qualification(slug: str) -> str:
    return reverse("participate:qualification", args=[slug])


def test_the_qualification_page_shows_the_holds_clock(client):
    study = open_study(minutes=60, qualification_minutes=7)
    arrive(client, study, pid(1))
    page = client.get(_qualification(study.slug)).content.decode()
    assert "Time left for the qualification test: <span" in page
    assert 'data-seconds="4' in page  # 7 minutes: 420 s, less the test's own time
    assert page.count("js/participant.js") == 1


def test_seconds_left_is_the_deadline_and_zero_once_over():
    study = open_study(minutes=30)
    participant = services.participant_arrive(study=study, pid=pid(2))
    now = participant.started_at + timedelta(minutes=4)
    assert late.seconds_left(participant, now) == 6 * 60  # the 10-minute hold
    assert late.seconds_left(participant, now + timedelta(minutes=7)) == 0
    Participant.objects.filter(pk=participant.pk).update(status="timed_out")
    participant.refresh_from_db()
    assert late.seconds_left(participant, now) == 0


def test_late_answers_while_the_batch_is_held_go_on_to_rating(client):
    study = open_study(minutes=60)
    arrive(client, study, pid(3))
    _age(11)  # past the 10-minute hold; no sweep ran, the batch is still held
    response = client.post(_qualification(study.slug), _answers(study))
    assert response["X-Page-Url"] == reverse("participate:rate", args=[study.slug, 0])
    participant = Participant.objects.get()
    assert participant.status == "qualified" and participant.qualification_late


def test_late_answers_after_the_batch_went_to_others_name_the_hold_and_give_the_code(client):
    study = open_study(minutes=60)
    arrive(client, study, pid(4))
    _age(11)
    services.participants_expire(study=study)  # cron: the places go back to the pool
    page = client.post(_qualification(study.slug), _answers(study), follow=True)
    assert page.redirect_chain[-1][0] == reverse("participate:timed_out", args=[study.slug])
    text = page.content.decode()
    assert 'data-limit="hold"' in text and "within 10 minutes of agreeing" in text
    assert "(60 minutes)" not in text
    assert "came after that time. They are saved and you passed." in text
    assert f'id="code">{study.completion_code}<' in text
    participant = Participant.objects.get()
    assert participant.status == "timed_out" and participant.qualification_late
    assert len(participant.qualification_answers) == 4


def test_late_wrong_answers_get_the_screen_out_code(client):
    study = open_study(minutes=60)
    arrive(client, study, pid(5))
    _age(11)
    services.participants_expire(study=study)
    page = client.post(_qualification(study.slug), _answers(study, right=False), follow=True)
    assert page.redirect_chain[-1][0] == reverse("participate:screened_out", args=[study.slug])
    assert study.screenout_code in page.content.decode()
    assert Participant.objects.get().qualification_late


def test_a_participant_who_let_the_hold_pass_without_answering_is_told_it_was_the_hold(client):
    study = open_study(minutes=60)
    arrive(client, study, pid(6))
    _age(11)
    page = client.get(_qualification(study.slug), follow=True)
    assert page.redirect_chain[-1][0] == reverse("participate:timed_out", args=[study.slug])
    text = page.content.decode()
    assert "within 10 minutes of agreeing" in text and "(60 minutes)" not in text
    assert "return the study on Prolific" in text and 'id="code"' not in text


def test_the_time_limit_page_still_names_the_studys_limit_after_qualifying(client):
    study = open_study(minutes=30)
    arrive(client, study, pid(7))
    client.post(_qualification(study.slug), _answers(study))
    _age(31)
    text = client.get(reverse("participate:arrive", args=[study.slug]), follow=True)
    text = text.content.decode()
    assert 'data-limit="study"' in text and "(30 minutes)" in text
    assert "qualification test has to be answered" not in text


def test_answers_sent_twice_after_the_hold_are_graded_once(client):
    study = open_study(minutes=60)
    arrive(client, study, pid(8))
    _age(11)
    services.participants_expire(study=study)
    client.post(_qualification(study.slug), _answers(study))
    first = Participant.objects.get().qualified_at
    again = client.post(_qualification(study.slug), _answers(study, right=False), follow=True)
    assert again.redirect_chain[-1][0] == reverse("participate:timed_out", args=[study.slug])
    participant = Participant.objects.get()
    assert participant.qualified_at == first and participant.status == "timed_out"


def test_the_study_page_marks_a_qualification_answered_late(client, researcher):
    from django.test import Client

    study = open_study(minutes=60)
    arrive(client, study, pid(9))
    _age(11)
    client.post(_qualification(study.slug), _answers(study))
    staff = Client()
    staff.force_login(researcher)
    page = staff.get(reverse("studies:detail", args=[study.pk])).content.decode()
    assert "(test answered late)" in page


def _rate(client, slug: str, pos: int, in_page: bool = False):
    headers = {"X-Rating-Page": "1"} if in_page else {}
    url = reverse("participate:rate", args=[slug, pos])
    return client.post(url, {"score": 2}, headers=headers)


@pytest.mark.parametrize("in_page", [False, True])
def test_an_answer_sent_just_before_the_time_limit_is_saved_then_the_session_ends(client, in_page):
    # Next pressed with a second left reaches the server a moment after the limit: the answer
    # is kept (the batch is still the participant's), the rest goes to others, with the code
    study = open_study(minutes=30, checks=0)
    arrive(client, study, pid(7))
    client.post(_qualification(study.slug), _answers(study))
    assert _rate(client, study.slug, 0).status_code == 303
    _age(30 + 5 / 60)  # 5 seconds past the time limit; no sweep has run
    response = _rate(client, study.slug, 1, in_page)
    assert response.status_code in (302, 303)
    assert response["Location"] == reverse("participate:timed_out", args=[study.slug])
    participant = Participant.objects.get()
    assert Rating.objects.filter(rater=participant.rater).count() == 2
    assert participant.status == "timed_out"
    assert not Slot.objects.filter(participant=participant, status="reserved").exists()
    page = client.get(response["Location"]).content.decode()
    assert "DONE1234" in page


def test_an_answer_sent_long_after_the_time_limit_is_not_saved(client):
    study = open_study(minutes=30, checks=0)
    arrive(client, study, pid(8))
    client.post(_qualification(study.slug), _answers(study))
    _age(30 + late.LATE_ANSWER_SECONDS / 60 + 0.5)
    response = _rate(client, study.slug, 0)
    assert response["Location"] == reverse("participate:timed_out", args=[study.slug])
    assert not Rating.objects.exists()
    assert Participant.objects.get().status == "timed_out"


def test_the_last_answer_sent_just_before_the_time_limit_finishes_the_batch(client):
    study = open_study(minutes=30, checks=0, per_participant=1)
    arrive(client, study, pid(9))
    client.post(_qualification(study.slug), _answers(study))
    _age(30 + 5 / 60)
    response = _rate(client, study.slug, 0)
    assert response["Location"] == reverse("participate:done", args=[study.slug])
    assert Participant.objects.get().status == "finished"
    assert "DONE1234" in client.get(response["Location"]).content.decode()
