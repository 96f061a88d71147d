"""Participant pages through the Django test client: arrival, resume, codes, idempotent Next."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotations.models import Rating
from studies.models import Participant

from .helpers import PID, open_study, pid

pytestmark = pytest.mark.django_db


def arrive_url(slug: str, prolific_pid: str | None = PID) -> str:
    url = reverse("participate:arrive", args=[slug])
    if prolific_pid is None:
        return url
    return f"{url}?PROLIFIC_PID={prolific_pid}&STUDY_ID=st1&SESSION_ID=se1"


def qualify_by_post(client, study) -> None:
    answers = {f"q{q.pk}": q.expected for q in study.check_questions.all()}
    response = client.post(reverse("participate:qualification", args=[study.slug]), answers)
    assert response.status_code == 302


def test_a_missing_pid_gets_a_clear_page(client):
    study = open_study()
    response = client.get(arrive_url(study.slug, None))
    assert response.status_code == 200
    assert b"missing your Prolific ID" in response.content


def test_a_malformed_pid_gets_a_clear_page_and_no_participant(client):
    study = open_study()
    response = client.get(arrive_url(study.slug, "x<script>"))
    assert response.status_code == 400
    assert b"not valid" in response.content
    assert not Participant.objects.exists()


def test_a_full_study_says_so_before_any_work(client):
    study = open_study(4, per_participant=4, ratings=1)
    for n in range(6):
        client.get(arrive_url(study.slug, pid(n)))
    response = client.get(arrive_url(study.slug, pid(77)))
    assert b"This study is full" in response.content


def test_arrival_stores_prolific_ids_and_leads_to_consent(client):
    study = open_study()
    response = client.get(arrive_url(study.slug))
    assert response["Location"] == reverse("participate:welcome", args=[study.slug])
    participant = Participant.objects.get()
    assert (participant.prolific_study_id, participant.prolific_session_id) == ("st1", "se1")
    page = client.get(response["Location"]).content.decode()
    assert "Introduction to the Plausibility Annotation Task" in page


def test_a_wrong_qualification_answer_shows_the_screenout_code(client):
    study = open_study()
    client.get(arrive_url(study.slug))
    answers = {f"q{q.pk}": 3 for q in study.check_questions.all()}
    response = client.post(
        reverse("participate:qualification", args=[study.slug]), answers, follow=True
    )
    assert "OUT98765" in response.content.decode()
    assert "https://app.prolific.com/submissions/complete?cc=OUT98765" in response.content.decode()
    again = client.get(arrive_url(study.slug), follow=True).content.decode()
    assert "OUT98765" in again
    rate = client.get(reverse("participate:rate", args=[study.slug, 0]), follow=True)
    assert "OUT98765" in rate.content.decode()


def _post_item(client, study, pos, score=3):
    url = reverse("participate:rate", args=[study.slug, pos])
    return client.post(url, {"score": score, "comment": ""})


def _answer_everything(client, study):
    participant = Participant.objects.get()
    checks = {a.position: a.question.expected for a in participant.attention_answers.all()}
    total = study.samples_per_participant + study.attention_checks_per_batch
    last = None
    for pos in range(total):
        last = _post_item(client, study, pos, checks.get(pos, 3))
    return last


def test_a_double_next_and_a_resent_last_item_store_one_rating_each(client):
    study = open_study()
    client.get(arrive_url(study.slug))
    qualify_by_post(client, study)
    participant = Participant.objects.get()
    first_sample = participant.slots.order_by("position").first()
    _post_item(client, study, first_sample.position)
    _post_item(client, study, first_sample.position)
    last = _answer_everything(client, study)
    assert last["Location"] == reverse("participate:done", args=[study.slug])
    resent = _answer_everything(client, study)
    assert resent["Location"] == reverse("participate:done", args=[study.slug])
    ratings = Rating.objects.filter(rater=participant.rater)
    assert ratings.count() == 4
    assert all(r.started_at and r.started_at <= r.created_at for r in ratings)
    assert all(r.position is None for r in ratings)
    done = client.get(reverse("participate:done", args=[study.slug])).content.decode()
    assert "DONE1234" in done


def test_the_same_pid_in_a_new_browser_resumes_at_the_first_open_item(client, django_user_model):
    from django.test import Client

    study = open_study()
    client.get(arrive_url(study.slug))
    qualify_by_post(client, study)
    _post_item(
        client,
        study,
        0,
        Participant.objects.get()
        .attention_answers.filter(position=0)
        .values_list("question__expected", flat=True)
        .first()
        or 2,
    )
    other = Client()
    response = other.get(arrive_url(study.slug), follow=True)
    assert response.redirect_chain[-1][0] == reverse("participate:rate", args=[study.slug, 1])
    back = other.get(reverse("participate:rate", args=[study.slug, 0])).content.decode()
    assert "checked" in back


def test_an_item_beyond_the_first_open_one_cannot_be_skipped_to(client):
    study = open_study()
    client.get(arrive_url(study.slug))
    qualify_by_post(client, study)
    response = client.get(reverse("participate:rate", args=[study.slug, 3]))
    assert response["Location"] == reverse("participate:rate_next", args=[study.slug])
    assert _post_item(client, study, 3).status_code == 302
    assert not Rating.objects.exists()


def test_a_missing_score_is_not_saved(client):
    study = open_study()
    client.get(arrive_url(study.slug))
    qualify_by_post(client, study)
    response = client.post(reverse("participate:rate", args=[study.slug, 0]), {"comment": "x"})
    assert response.status_code == 200
    assert b"Please select a plausibility" in response.content
    assert not Rating.objects.exists()


def test_a_closed_study_tells_active_participants_and_saves_nothing(client):
    from studies import services

    study = open_study()
    client.get(arrive_url(study.slug))
    qualify_by_post(client, study)
    services.study_close(study=study)
    response = _post_item(client, study, 0)
    page = client.get(response["Location"], follow=True).content.decode()
    assert "This study is closed" in page
    assert not Rating.objects.exists()
