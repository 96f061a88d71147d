"""Participant pages through the Django test client: arrival, consent, resume token, rate limits,
codes, idempotent Next."""

from __future__ import annotations

import hashlib
import itertools
import re

import pytest
from django.test import Client
from django.urls import reverse

from annotations.models import Rater, Rating
from studies.models import AttentionAnswer, Participant, Slot

from .helpers import BOT_ANSWERS, PID, open_study, pid

pytestmark = pytest.mark.django_db


def arrive_url(slug: str, prolific_pid: str | None = PID) -> str:
    url = reverse("participate:arrive", args=[slug])
    if prolific_pid is None:
        return url
    return f"{url}?PROLIFIC_PID={prolific_pid}&STUDY_ID=st1&SESSION_ID=se1"


# Each test browser arrives from an address of its own, as participants do (the holds are
# capped per client, studies.holds); a test about one address shared sets REMOTE_ADDR.
_ADDRESSES = (f"198.51.{n // 250 % 250}.{n % 250 + 1}" for n in itertools.count())


def arrive(client, study, prolific_pid: str = PID):
    """The arrival link (GET: the consent page), then the consent POST."""
    client.defaults.setdefault("REMOTE_ADDR", next(_ADDRESSES))
    page = client.get(arrive_url(study.slug, prolific_pid))
    assert page.status_code == 200, page.content
    token = re.search(r'name="token" value="([^"]+)"', page.content.decode()).group(1)
    data = {"pid": prolific_pid, "study_id": "st1", "session_id": "se1", "token": token}
    return client.post(reverse("participate:consent", args=[study.slug]), data)


def moved_on(response) -> bool:
    """Whether a consent or qualification POST took the participant on to their next page:
    that page in the answer itself (200, its address in X-Page-Url) or a redirect to it."""
    return response.status_code == 302 or (response.status_code == 200 and "X-Page-Url" in response)


def answered(response) -> str | int:
    """``"next"`` for a POST that took the participant on (``moved_on``), else its status
    (the page it showed instead: a refusal, a problem)."""
    return "next" if moved_on(response) else response.status_code


def next_url(response) -> str:
    """The address of the page a POST led to: sent in the answer, or redirected to."""
    return response["X-Page-Url"] if response.status_code == 200 else response["Location"]


def qualify_by_post(client, study):
    answers = {f"q{q.pk}": q.expected for q in study.check_questions.all()}
    answers |= {f"bot_{key}": answer for key, answer in BOT_ANSWERS.items()}  # if asked
    response = client.post(reverse("participate:qualification", args=[study.slug]), answers)
    assert moved_on(response)
    return response


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


def test_a_full_study_says_so_before_any_work():
    study = open_study(4, per_participant=4, ratings=1)
    for n in range(6):
        browser = Client()
        arrive(browser, study, pid(n))
        qualify_by_post(browser, study)
    response = arrive(Client(), study, pid(77))
    assert b"This study is full" in response.content
    assert not Participant.objects.filter(prolific_pid=pid(77)).exists()


def test_a_study_whose_places_are_held_by_starters_says_try_again_in_a_few_minutes():
    study = open_study(4, per_participant=4, ratings=1)
    for n in range(6):
        arrive(Client(), study, pid(n))  # consented, not qualified yet
    response = arrive(Client(), study, pid(77))
    assert response.status_code == 429
    assert b"try again in a few minutes" in response.content
    assert b"This study is full" not in response.content
    assert not Participant.objects.filter(prolific_pid=pid(77)).exists()


def test_a_consent_whose_answer_was_lost_resumes_when_the_link_is_opened_again(client):
    """The consent POST reached the server and committed, but the browser never got the
    answer (nor its cookie): the same browser opening the link again, or submitting the
    form again, continues with its batch; another browser still cannot."""
    study = open_study(4, per_participant=4, ratings=1)
    page = client.get(arrive_url(study.slug))
    token = page.context["arrival"]["token"]
    assert client.cookies[f"resume_{study.slug}"].value == token
    data = {"pid": PID, "study_id": "st1", "session_id": "se1", "token": token}
    url = reverse("participate:consent", args=[study.slug])
    lost = Client().post(url, data)  # the answer that never reached the browser
    assert moved_on(lost)
    for n in range(5):  # the study fills up meanwhile
        browser = Client()
        arrive(browser, study, pid(n))
        qualify_by_post(browser, study)
    qualification = reverse("participate:qualification", args=[study.slug])
    again = client.get(arrive_url(study.slug))
    assert (again.status_code, again["Location"]) == (302, qualification)
    resubmitted = client.post(url, data)
    assert (resubmitted.status_code, resubmitted["Location"]) == (302, qualification)
    assert Participant.objects.filter(prolific_pid=PID).count() == 1
    assert Client().get(arrive_url(study.slug)).status_code == 409


def test_opening_the_link_again_keeps_the_same_token(client):
    study = open_study()
    first = client.get(arrive_url(study.slug)).context["arrival"]["token"]
    second = client.get(arrive_url(study.slug)).context["arrival"]["token"]
    assert first == second
    assert Client().get(arrive_url(study.slug)).context["arrival"]["token"] != first


def test_a_get_arrival_creates_no_participant_and_reserves_no_slot(client):
    study = open_study()
    page = client.get(arrive_url(study.slug))
    assert page.status_code == 200
    assert "Introduction to the Plausibility Annotation Task" in page.content.decode()
    assert not Participant.objects.exists()
    assert not Slot.objects.exclude(status="free").exists()
    assert not Rater.objects.exists()


def test_consent_stores_prolific_ids_reserves_the_batch_and_leads_to_qualification(client):
    study = open_study()
    response = arrive(client, study)
    assert next_url(response) == reverse("participate:qualification", args=[study.slug])
    participant = Participant.objects.get()
    assert (participant.prolific_study_id, participant.prolific_session_id) == ("st1", "se1")
    assert participant.slots.count() == study.samples_per_participant
    cookie = response.cookies[f"resume_{study.slug}"]
    assert cookie["httponly"] and cookie.value not in participant.resume_hash
    assert participant.resume_hash == hashlib.sha256(cookie.value.encode()).hexdigest()
    assert PID not in participant.rater.pseudonym


def test_a_double_submitted_consent_resumes_the_same_participant(client):
    study = open_study()
    page = client.get(arrive_url(study.slug))
    data = {"pid": PID, "study_id": "st1", "session_id": "se1"}
    data["token"] = page.context["arrival"]["token"]
    url = reverse("participate:consent", args=[study.slug])
    first, second = client.post(url, data), Client().post(url, data)
    assert moved_on(first) and moved_on(second)
    assert Participant.objects.count() == 1


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("PROLIFIC_PID=abc123", "PROLIFIC_PID"),
        ("PROLIFIC_PID=5F0A1B2C3D4E5F6A7B8C9D0E", "PROLIFIC_PID"),
        (f"PROLIFIC_PID={PID}&STUDY_ID=someone-elses", "STUDY_ID"),
    ],
)
def test_a_malformed_pid_or_a_mismatched_study_id_is_refused(client, query, field):
    study = open_study()
    study.prolific_study_id = "st1"
    study.save()
    url = reverse("participate:arrive", args=[study.slug])
    response = client.get(f"{url}?{query}")
    assert response.status_code == 400
    assert field in response.content.decode()
    bad_pid = query.split("&")[0].split("=")[1]
    data = {"pid": bad_pid, "study_id": "someone-elses", "token": "t" * 43}
    consent = client.post(reverse("participate:consent", args=[study.slug]), data)
    assert consent.status_code == 400
    assert not Participant.objects.exists()


@pytest.mark.parametrize("field", ["STUDY_ID", "SESSION_ID"])
def test_a_study_or_session_id_with_a_trailing_newline_is_refused(client, field):
    # ``$`` alone also matches before a final newline: "se1\n" must not pass as an id
    study = open_study()
    url = reverse("participate:arrive", args=[study.slug])
    query = {"PROLIFIC_PID": PID, "STUDY_ID": "st1", "SESSION_ID": "se1"}
    query[field] += "\n"
    response = client.get(url, query)
    assert response.status_code == 400
    assert field in response.content.decode()
    data = {"pid": PID, "study_id": query["STUDY_ID"], "session_id": query["SESSION_ID"]}
    consent = client.post(
        reverse("participate:consent", args=[study.slug]), {**data, "token": "t" * 43}
    )
    assert consent.status_code == 400
    assert not Participant.objects.exists()


def test_another_pid_pattern_can_be_configured_per_study(client):
    study = open_study()
    study.pid_pattern = r"^W[0-9]{5}$"
    study.save()
    assert moved_on(arrive(client, study, "W12345"))
    assert Client().get(arrive_url(study.slug, PID)).status_code == 400


def test_a_wrong_qualification_answer_shows_the_screenout_code(client):
    study = open_study()
    arrive(client, study)
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
    arrive(client, study)
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


def test_the_same_pid_in_the_same_browser_resumes_at_the_first_open_item(client):
    study = open_study()
    arrive(client, study)
    qualify_by_post(client, study)
    participant = Participant.objects.get()
    checks = {a.position: a.question.expected for a in participant.attention_answers.all()}
    _post_item(client, study, 0, checks.get(0, 2))
    response = client.get(arrive_url(study.slug), follow=True)
    assert response.redirect_chain[-1][0] == reverse("participate:rate", args=[study.slug, 1])
    back = client.get(reverse("participate:rate", args=[study.slug, 0])).content.decode()
    assert "checked" in back


def test_a_second_browser_with_the_same_pid_sees_no_earlier_answer(client):
    study = open_study()
    arrive(client, study)
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
    Rating.objects.update(comment="my secret comment")
    AttentionAnswer.objects.exclude(score=None).update(comment="my secret comment")

    def answers():
        return (
            list(Rating.objects.values_list("score", "comment", "updated_at")),
            list(AttentionAnswer.objects.values_list("score", "comment", "answered_at")),
        )

    before = answers()
    assert any(before)
    other = Client()
    response = other.get(arrive_url(study.slug))
    assert response.status_code == 409
    assert "started this study in another browser" in response.content.decode()
    for url in (
        reverse("participate:rate", args=[study.slug, 0]),
        reverse("participate:rate_next", args=[study.slug]),
        reverse("participate:qualification", args=[study.slug]),
    ):
        page = other.get(url, follow=True).content.decode()
        assert "checked" not in page and "my secret comment" not in page
    token = "x" * 43
    data = {"pid": PID, "study_id": "st1", "session_id": "se1", "token": token}
    assert other.post(reverse("participate:consent", args=[study.slug]), data).status_code == 409
    assert (
        other.post(reverse("participate:rate", args=[study.slug, 1]), {"score": 5}).status_code
        == 302
    )
    assert answers() == before and Participant.objects.count() == 1


def test_changing_pid_in_the_same_browser_holds_nothing_new(client):
    study = open_study()
    arrive(client, study)
    held = Slot.objects.exclude(status="free").count()
    response = client.get(arrive_url(study.slug, pid(5)))
    assert response.status_code == 409
    assert Participant.objects.count() == 1
    assert Slot.objects.exclude(status="free").count() == held


def test_the_arrival_rate_limit_answers_429_past_its_threshold(client, settings):
    settings.STUDY_RATE_PER_IP = 3
    study = open_study()
    codes = [client.get(arrive_url(study.slug, pid(n))).status_code for n in range(5)]
    assert codes == [200, 200, 200, 429, 429]
    page = client.get(arrive_url(study.slug, pid(9)))
    assert "Too many requests" in page.content.decode()
    assert '<link rel="stylesheet"' in page.content.decode()


def test_the_study_rate_limit_counts_every_ip(client, settings):
    settings.STUDY_RATE_PER_STUDY = 2
    study = open_study()
    codes = [
        client.get(arrive_url(study.slug, pid(n)), REMOTE_ADDR=f"10.0.0.{n}").status_code
        for n in range(3)
    ]
    assert codes == [200, 200, 429]


def test_the_qualification_rate_limit_answers_429(client, settings):
    study = open_study()
    arrive(client, study)
    settings.STUDY_RATE_PER_IP = 1
    url = reverse("participate:qualification", args=[study.slug])
    assert client.post(url, {}).status_code == 200  # invalid form, counted
    assert client.post(url, {}).status_code == 429
    assert Participant.objects.get().status == "started"


def test_too_many_unqualified_participants_are_asked_to_come_back(client):
    study = open_study(8, per_participant=2)
    study.max_unqualified = 2
    study.save()
    for n in range(2):
        assert moved_on(arrive(Client(), study, pid(n)))
    busy = arrive(client, study, pid(3))
    assert busy.status_code == 429
    assert "try again in a few minutes" in busy.content.decode()
    assert Participant.objects.count() == 2


def test_an_item_beyond_the_first_open_one_cannot_be_skipped_to(client):
    study = open_study()
    arrive(client, study)
    qualify_by_post(client, study)
    response = client.get(reverse("participate:rate", args=[study.slug, 3]))
    assert response["Location"] == reverse("participate:rate", args=[study.slug, 0])
    assert _post_item(client, study, 3).status_code == 303
    assert not Rating.objects.exists()


def test_a_missing_score_is_not_saved(client):
    study = open_study()
    arrive(client, study)
    qualify_by_post(client, study)
    response = client.post(reverse("participate:rate", args=[study.slug, 0]), {"comment": "x"})
    assert response.status_code == 200
    assert b"Please select a plausibility" in response.content
    assert not Rating.objects.exists()


def test_a_closed_study_lets_participants_who_started_finish_and_get_the_code(client):
    from studies import services

    study = open_study()
    arrive(client, study)
    qualify_by_post(client, study)
    services.study_close(study=study)
    last = _answer_everything(client, study)
    assert last["Location"].endswith("/done/")
    page = client.get(last["Location"]).content.decode()
    assert "DONE1234" in page
    assert Participant.objects.get().status == Participant.Status.FINISHED


def test_a_closed_or_paused_study_tells_a_new_arrival_what_to_do(client):
    from studies import services

    study = open_study()
    services.study_pause(study=study)
    page = client.get(arrive_url(study.slug)).content.decode()
    assert "This study is paused" in page and "open the study link again later" in page
    services.study_close(study=study)
    page = client.get(arrive_url(study.slug)).content.decode()
    assert "This study is closed" in page and "return the study on Prolific" in page
    assert not Participant.objects.exists()


def test_a_study_paused_or_closed_while_the_consent_page_was_open_says_what_to_do(client):
    from studies import services

    study = open_study()
    page = client.get(arrive_url(study.slug))
    data = {"pid": PID, "study_id": "st1", "session_id": "se1"}
    data["token"] = page.context["arrival"]["token"]
    consent = reverse("participate:consent", args=[study.slug])
    services.study_pause(study=study)  # while the participant reads the guidelines
    text = client.post(consent, data).content.decode()
    assert "This study is paused" in text and "open the study link again later" in text
    services.study_close(study=study)
    text = client.post(consent, data).content.decode()
    assert "This study is closed" in text and "return the study on Prolific" in text
    assert not Participant.objects.exists()


def test_the_welcome_page_counts_samples_like_the_guidelines_and_names_the_contact(client):
    study = open_study(per_participant=4, ratings=2)
    study.contact = "ambistory@example.org"
    study.save(update_fields=["contact"])
    page = client.get(arrive_url(study.slug)).content.decode()
    assert "4 samples</strong> plus 1 check story" in page and "(5 stories in all)" in page
    assert 'id="duration"' in page and "about <strong>10 minutes</strong>" in page
    assert "ambistory@example.org" in page


def test_the_time_up_page_pluralises_the_limit(client):
    study = open_study(minutes=1)
    page = client.get(reverse("participate:timed_out", args=[study.slug])).content.decode()
    assert "(1 minute)" in page and "1 minutes" not in page


def _past_the_time_limit(study) -> None:
    from datetime import timedelta

    from django.utils import timezone

    late = timezone.now() - timedelta(minutes=study.time_limit_minutes + 1)
    Participant.objects.update(started_at=late)


def test_a_participant_who_runs_out_of_time_after_rating_still_gets_the_completion_code(client):
    study = open_study(minutes=30)
    study.contact = "lab@example.org"
    study.save(update_fields=["contact"])
    arrive(client, study)
    qualify_by_post(client, study)
    answers = Participant.objects.get().attention_answers.all()
    checks = {a.position: a.question.expected for a in answers}
    _post_item(client, study, 0, checks.get(0, 3))
    _past_the_time_limit(study)

    page = client.get(reverse("participate:rate", args=[study.slug, 1]), follow=True)

    assert page.redirect_chain[-1][0] == reverse("participate:timed_out", args=[study.slug])
    text = page.content.decode()
    assert "Your time is up" in text and "(30 minutes)" in text
    assert "The 1 answer you gave is saved" in text
    assert f'id="code">{study.completion_code}<' in text and "lab@example.org" in text
    assert study.completion_url(study.completion_code) in text
    participant = Participant.objects.get()
    assert participant.status == Participant.Status.TIMED_OUT
    ratings = Rating.objects.filter(rater=participant.rater).count()
    assert ratings + participant.attention_answers.exclude(score=None).count() == 1


def test_a_participant_who_answered_nothing_is_asked_to_return_the_study_and_gets_no_code(client):
    study = open_study(minutes=30)
    arrive(client, study)
    qualify_by_post(client, study)
    _past_the_time_limit(study)

    text = client.get(arrive_url(study.slug), follow=True).content.decode()

    assert "Your time is up" in text and "return the study on Prolific" in text
    assert study.completion_code not in text and 'id="code"' not in text


def test_the_time_up_page_sends_a_participant_with_time_left_back_to_work(client):
    study = open_study(minutes=30)
    arrive(client, study)
    qualify_by_post(client, study)
    response = client.get(reverse("participate:timed_out", args=[study.slug]))
    assert response.status_code == 302
    assert response.url == reverse("participate:rate", args=[study.slug, 0])
    assert study.completion_code not in client.get(response.url).content.decode()


def test_opening_the_consents_address_leads_to_the_participants_page_not_a_blank_405(client):
    # without participant.js the test comes in the consent's answer, so the address bar
    # shows /consent/; opening that address again (Enter, a copied link) is a GET
    study = open_study()
    arrive(client, study)
    consent = reverse("participate:consent", args=[study.slug])
    response = client.get(consent)
    assert response.status_code == 302
    assert response["Location"] == reverse("participate:qualification", args=[study.slug])
    stranger = Client().get(consent)
    assert stranger.status_code == 302
    assert stranger["Location"] == reverse("participate:arrive", args=[study.slug])
    assert Participant.objects.count() == 1
