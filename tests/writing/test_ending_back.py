"""Figure 3's Back button (issue 31): a writer goes back to an ending written before, sees
it with its comment, and Next saves a change of that same ending (the old text kept in
``EndingEdit``), once however often it is sent; the rules, the time limit and the late flag
hold as for a new ending, and an ending a researcher has begun to review stays as it is."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection, connections
from django.urls import reverse
from django.utils import timezone

from studies.late import LATE_WORK_MINUTES
from studies.models import Participant, Study
from tests.studies.helpers import pid
from tests.studies.test_participant_views import arrive, qualify_by_post
from tests.writing.helpers import open_writing_study, writing_world
from writing import review, services
from writing.models import Ending, EndingEdit, EndingSlot, WrittenSetup

pytestmark = pytest.mark.django_db

FIRST, CHANGED = "Nobody mentioned it again.", "Nobody ever mentioned it again."


def _writer_with_one_ending(client, researcher):
    """A writer of a two-story ending study who wrote the first ending (with a comment)."""
    writing_world(researcher)
    study = open_writing_study(
        Study.Activity.ENDINGS, slug="back", per=2, setups=[WrittenSetup.objects.get()]
    )
    arrive(client, study, pid(5))
    qualify_by_post(client, study)
    url = reverse("write:endings", args=[study.slug])
    client.get(url)
    writer = Participant.objects.get(prolific_pid=pid(5))
    first, second = EndingSlot.objects.filter(participant=writer).order_by("position")
    sent = client.post(url, {"slot": first.pk, "text": FIRST, "comment": "a tricky one"})
    assert sent.status_code == 303
    return study, url, writer, first, second


def _at(study, position: int) -> str:
    return reverse("write:ending_at", args=[study.slug, position])


def test_back_shows_the_previous_ending_and_next_changes_it_without_a_second_one(
    client, researcher
):
    study, url, writer, first, second = _writer_with_one_ending(client, researcher)
    page = client.get(url).content.decode()
    assert 'id="back"' in page and 'value="back"' in page and "Finished Samples: 1/2" in page
    back = client.post(url, {"slot": second.pk, "action": "back", "text": "", "comment": ""})
    assert back.status_code == 303 and back["Location"] == _at(study, 0)
    shown = client.get(_at(study, 0)).content.decode()
    assert FIRST in shown and "a tricky one" in shown and 'id="saved-note"' in shown
    assert 'aria-disabled="true"' in shown  # the first story: nothing before it
    changed = client.post(_at(study, 0), {"slot": first.pk, "text": CHANGED, "comment": ""})
    assert changed.status_code == 303 and changed["Location"] == _at(study, 1)
    assert client.get(_at(study, 1))["Location"] == url  # not written yet: the current one
    ending = Ending.objects.get(participant=writer)  # still one ending, now changed
    assert (ending.text, ending.comment, ending.late) == (CHANGED, "", False)
    edit = EndingEdit.objects.get()
    assert (edit.ending_id, edit.text_before, edit.comment_before) == (
        ending.pk,
        FIRST,
        "a tricky one",
    )
    assert Participant.objects.get(pk=writer.pk).status == Participant.Status.QUALIFIED


def test_the_same_change_sent_again_changes_nothing(client, researcher):
    study, _, writer, first, _ = _writer_with_one_ending(client, researcher)
    for _ in range(3):
        client.post(_at(study, 0), {"slot": first.pk, "text": CHANGED})
    client.post(_at(study, 0), {"slot": first.pk, "text": CHANGED})
    assert Ending.objects.filter(participant=writer).count() == 1
    assert EndingEdit.objects.count() == 1


def test_a_change_that_breaks_the_rule_is_refused_and_the_ending_stays(client, researcher):
    study, _, writer, first, _ = _writer_with_one_ending(client, researcher)
    word = first.written.setup.homonym.form
    refused = client.post(_at(study, 0), {"slot": first.pk, "text": f"The {word} fell."})
    assert refused.status_code == 400
    assert f"must not contain the word &quot;{word}&quot;".encode() in refused.content
    assert f"The {word} fell.".encode() in refused.content  # shown again to fix
    assert Ending.objects.get(participant=writer).text == FIRST
    assert not EndingEdit.objects.exists()


def test_back_keeps_what_is_typed_for_the_story_not_written_yet(client, researcher):
    study, url, _, _, second = _writer_with_one_ending(client, researcher)
    client.post(url, {"slot": second.pk, "action": "back", "text": "Half a tho", "comment": "x"})
    assert (EndingSlot.objects.get(pk=second.pk).draft, second.endings.count()) == ("Half a tho", 0)
    assert "Half a tho" in client.get(url).content.decode()


def test_back_goes_no_further_than_the_first_story_nor_ahead_of_the_current_one(client, researcher):
    study, url, writer, first, second = _writer_with_one_ending(client, researcher)
    before_first = client.post(_at(study, 0), {"slot": first.pk, "action": "back"})
    assert before_first["Location"] == reverse("participate:arrive", args=[study.slug])
    assert client.get(_at(study, 1))["Location"] == url
    assert client.get(_at(study, 7))["Location"] == url
    with pytest.raises(services.WritingError, match="first story"):
        services.ending_back(participant=writer, slot_id=first.pk, text="")


def test_an_ending_a_researcher_reviews_can_no_longer_be_changed(client, researcher):
    study, _, writer, first, _ = _writer_with_one_ending(client, researcher)
    ending = Ending.objects.get(participant=writer)
    review.ending_review(ending=ending, decision="rejected", reason="off topic", by=researcher)
    refused = client.post(_at(study, 0), {"slot": first.pk, "text": CHANGED})
    assert refused.status_code == 400 and b"already reviewing this ending" in refused.content
    assert Ending.objects.get(pk=ending.pk).text == FIRST and not EndingEdit.objects.exists()


def _past_the_limit(study: Study, minutes: float) -> None:
    late = timezone.now() - timedelta(minutes=study.time_limit_minutes + minutes)
    Participant.objects.filter(study=study).update(started_at=late)


def test_a_change_sent_after_the_limit_is_saved_late_and_ends_the_writing(client, researcher):
    study, _, writer, first, _ = _writer_with_one_ending(client, researcher)
    _past_the_limit(study, 1)
    page = client.post(_at(study, 0), {"slot": first.pk, "text": CHANGED}, follow=True)
    assert page.redirect_chain[-1][0] == reverse("participate:timed_out", args=[study.slug])
    ending = Ending.objects.get(participant=writer)
    assert (ending.text, ending.late, EndingEdit.objects.get().late) == (CHANGED, True, True)
    assert Participant.objects.get(pk=writer.pk).status == Participant.Status.TIMED_OUT


def test_a_change_sent_far_too_late_is_not_saved(client, researcher):
    study, _, writer, first, _ = _writer_with_one_ending(client, researcher)
    _past_the_limit(study, LATE_WORK_MINUTES + 5)
    page = client.post(_at(study, 0), {"slot": first.pk, "text": CHANGED}).content.decode()
    assert "after the time limit" in page and study.completion_code in page
    assert Ending.objects.get(participant=writer).text == FIRST
    assert not EndingEdit.objects.exists()
    back = client.post(_at(study, 0), {"slot": first.pk, "action": "back"})
    assert back["Location"] == reverse("participate:arrive", args=[study.slug])


def test_researchers_see_the_writers_changes_on_the_review_page_and_in_the_export(
    client, researcher
):
    from django.test import Client

    study, _, writer, first, _ = _writer_with_one_ending(client, researcher)
    client.post(_at(study, 0), {"slot": first.pk, "text": CHANGED})
    staff = Client()
    staff.force_login(researcher)
    ending = Ending.objects.get(participant=writer)
    page = staff.get(reverse("writing:ending", args=[ending.pk])).content.decode()
    assert 'id="writer-edits"' in page and FIRST in page
    export = b"".join(staff.get(reverse("writing:export")).streaming_content).decode()
    assert f'"text_before": "{FIRST}"' in export and f'"text": "{CHANGED}"' in export


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_one_change_sent_at_once_from_eight_tabs_is_saved_once(client, researcher):
    if connection.vendor != "postgresql":
        pytest.skip("row-lock concurrency needs PostgreSQL (CI runs it there)")
    _, _, writer, first, _ = _writer_with_one_ending(client, researcher)
    barrier, errors = threading.Barrier(8), []

    def send() -> None:
        try:
            barrier.wait(timeout=30)
            services.ending_submit(participant=writer, slot_id=first.pk, text=CHANGED)
        except Exception as exc:  # asserted on in the main thread
            errors.append(repr(exc))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=send) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert Ending.objects.filter(participant=writer).count() == 1
    assert EndingEdit.objects.count() == 1
    assert Ending.objects.get(participant=writer).text == CHANGED
