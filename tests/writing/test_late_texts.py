"""A writer whose time runs out (issue 28): the page shows the time left; a text sent after
the limit is saved marked late (the page sends what is typed at zero), or the writer is told
exactly why not; either way the time-up page gives the code for what was kept."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from studies.late import LATE_WORK_MINUTES
from studies.models import Participant, Study
from tests.studies.helpers import pid
from tests.studies.test_participant_views import arrive, qualify_by_post
from tests.writing.helpers import SENTENCES, make_pool, open_writing_study, writing_world
from writing.models import Draw, Ending, EndingSlot, Sentence

pytestmark = pytest.mark.django_db


def _past_the_limit(study: Study, minutes: float = 1) -> None:
    late = timezone.now() - timedelta(minutes=study.time_limit_minutes + minutes)
    Participant.objects.filter(study=study).update(started_at=late)


def _sentence_writer(client, per: int = 5):
    make_pool()
    study = open_writing_study(Study.Activity.SENTENCES, slug="w", per=per)
    arrive(client, study, pid(1))
    qualify_by_post(client, study)
    url = reverse("write:sentences", args=[study.slug])
    page = client.get(url).content.decode()
    return study, url, page


def _text(draw: Draw) -> str:
    return SENTENCES[draw.pair.homonym.form]


def test_the_sentence_page_shows_the_time_left_and_warns_like_the_rating_pages(client):
    study, _, page = _sentence_writer(client)
    assert 'id="time-left" data-seconds="' in page and "Time left: <span" in page
    assert "js/participant.js" in page and "js/writing.js" in page
    assert "the text you are writing is sent as it is and saved" in page


def test_a_sentence_sent_when_the_time_ran_out_is_saved_late_with_the_code(client):
    study, url, _ = _sentence_writer(client)
    draw = Draw.objects.get(status="open")
    _past_the_limit(study)
    page = client.post(url, {"draw": draw.pk, "text": _text(draw)}, follow=True)
    assert page.redirect_chain[-1][0] == reverse("participate:timed_out", args=[study.slug])
    text = page.content.decode()
    assert "WRITE123" in text and "marked as sent after the time limit" in text
    assert 'data-limit="study"' in text
    assert Sentence.objects.get().late
    assert Participant.objects.get().status == "timed_out"


def test_a_sentence_sent_far_too_late_is_not_saved_and_the_writer_is_told_why(client):
    study, url, _ = _sentence_writer(client)
    first = Draw.objects.get(status="open")
    client.post(url, {"draw": first.pk, "text": _text(first)})
    client.get(url)
    second = Draw.objects.get(status="open")
    _past_the_limit(study, LATE_WORK_MINUTES + 5)
    page = client.post(url, {"draw": second.pk, "text": _text(second)}).content.decode()
    assert "after the time limit for this study (60 minutes)" in page
    assert f"more than {LATE_WORK_MINUTES} minutes after the limit are not saved" in page
    assert "WRITE123" in page  # the code for the sentence written in time
    assert Sentence.objects.count() == 1 and not Sentence.objects.get().late


def test_a_late_sentence_that_breaks_a_rule_is_kept_as_a_draft_and_explained(client):
    study, url, _ = _sentence_writer(client)
    draw = Draw.objects.get(status="open")
    word = draw.pair.homonym.form
    _past_the_limit(study)
    page = client.post(url, {"draw": draw.pk, "text": f"A {word} and a {word}."})
    text = page.content.decode()
    assert "sent after the time limit and breaks a rule" in text and "exactly once" in text
    assert 'id="code"' not in text and "return the study on Prolific" in text
    assert Draw.objects.get(pk=draw.pk).draft == f"A {word} and a {word}."
    assert Participant.objects.get().status == "timed_out" and not Sentence.objects.exists()


def test_the_last_sentence_sent_late_finishes_the_writer(client):
    study, url, _ = _sentence_writer(client, per=1)
    draw = Draw.objects.get(status="open")
    _past_the_limit(study)
    page = client.post(url, {"draw": draw.pk, "text": _text(draw)}, follow=True)
    assert page.redirect_chain[-1][0] == reverse("participate:done", args=[study.slug])
    assert Sentence.objects.get().late and Participant.objects.get().status == "finished"


def test_a_late_ending_is_saved_or_explained_when_the_story_went_to_another_writer(
    client, researcher
):
    from django.test import Client

    from writing.models import WrittenSetup

    writing_world(researcher)
    study = open_writing_study(
        Study.Activity.ENDINGS, slug="late-e", per=2, setups=[WrittenSetup.objects.get()]
    )
    arrive(client, study, pid(3))
    qualify_by_post(client, study)
    url = reverse("write:endings", args=[study.slug])
    assert "Time left: <span" in client.get(url).content.decode()
    writer = Participant.objects.get(prolific_pid=pid(3))
    slots = list(EndingSlot.objects.filter(participant=writer).order_by("position"))
    assert len(slots) == 2
    _past_the_limit(study)
    page = client.post(url, {"slot": slots[0].pk, "text": "Nobody mentioned it again."})
    assert page.status_code == 303
    assert Ending.objects.get(participant=writer).late
    other = Client()  # the timed-out writer's other story goes to the next writer
    arrive(other, study, pid(4))
    qualify_by_post(other, study)
    other.get(url)
    assert EndingSlot.objects.get(pk=slots[1].pk).participant.prolific_pid == pid(4)
    text = client.post(url, {"slot": slots[1].pk, "text": "It rained."}).content.decode()
    assert "already been given to another writer, so it was not saved" in text
    assert study.completion_code in text
    assert Ending.objects.filter(participant=writer).count() == 1


def test_researchers_see_which_texts_came_late(client, researcher):
    from django.test import Client

    researcher_client = Client()
    researcher_client.force_login(researcher)
    study, url, _ = _sentence_writer(client)
    draw = Draw.objects.get(status="open")
    _past_the_limit(study)
    client.post(url, {"draw": draw.pk, "text": _text(draw)})
    sentence = Sentence.objects.get()
    listing = researcher_client.get(reverse("writing:sentences")).content.decode()
    assert "sent after the time limit" in listing
    detail = reverse("writing:sentence", args=[sentence.pk])
    assert "sent after the time limit" in researcher_client.get(detail).content.decode()
    export = researcher_client.get(reverse("writing:export"))
    assert '"late": true' in b"".join(export.streaming_content).decode()
