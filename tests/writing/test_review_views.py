"""writing/review_views.py: one URL per action on a written text's review page; a refused
precontext says why instead of being dropped, and a clean-up is decided only on the page
of its own text."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.writing.helpers import writing_world
from writing.models import Cleanup, Ending, Precontext, ReviewDecision

pytestmark = pytest.mark.django_db


def test_a_precontext_the_form_refuses_is_reported_and_not_saved(client, researcher):
    world = writing_world(researcher)
    client.force_login(researcher)
    before = Precontext.objects.count()
    url = reverse("writing:precontext_write", args=[world["sentence_pk"]])
    page = client.post(url, {"text": "x" * 4001}, follow=True)
    assert page.redirect_chain[-1][0] == reverse("writing:sentence", args=[world["sentence_pk"]])
    shown = [str(m) for m in page.context["messages"]]
    assert len(shown) == 1 and shown[0].startswith("The precontext was not saved:")
    assert "4000" in shown[0]  # the form's own reason, the length limit
    assert Precontext.objects.count() == before


def test_a_valid_precontext_is_saved_as_a_new_version_of_the_one_it_edits(client, researcher):
    world = writing_world(researcher)
    client.force_login(researcher)
    old = Precontext.objects.get()
    url = reverse("writing:precontext_write", args=[world["sentence_pk"]])
    client.post(url, {"text": "One. Two. Three.", "based_on": old.pk})
    new = Precontext.objects.exclude(pk=old.pk).get()
    assert (new.text, new.based_on_id, new.source) == ("One. Two. Three.", old.pk, "researcher")


def test_a_clean_up_of_another_text_is_not_found_on_a_sentence_page(client, researcher):
    world = writing_world(researcher)
    client.force_login(researcher)
    cleanup = Cleanup.objects.get(ending_id=world["ending_pk"])
    for decision in ("accept", "reject"):
        url = reverse(f"writing:sentence_cleanup_{decision}", args=[world["sentence_pk"]])
        assert client.post(url, {"cleanup": cleanup.pk}).status_code == 404
    assert Cleanup.objects.get(pk=cleanup.pk).status == Cleanup.Status.SUGGESTED


def test_a_clean_up_is_rejected_on_its_own_page_by_its_own_url(client, researcher):
    world = writing_world(researcher)
    client.force_login(researcher)
    cleanup = Cleanup.objects.get(ending_id=world["ending_pk"])
    url = reverse("writing:ending_cleanup_reject", args=[world["ending_pk"]])
    page = client.post(url, {"cleanup": cleanup.pk}, follow=True)
    assert [str(m) for m in page.context["messages"]] == ["Done."]
    assert Cleanup.objects.get(pk=cleanup.pk).status == Cleanup.Status.REJECTED


def test_an_action_url_answers_a_get_with_405_and_the_page_answers_a_post_with_405(
    client, researcher
):
    world = writing_world(researcher)
    client.force_login(researcher)
    review = reverse("writing:sentence_review", args=[world["sentence_pk"]])
    assert client.get(review).status_code == 405
    page = reverse("writing:sentence", args=[world["sentence_pk"]])
    assert client.post(page, {"action": "review", "decision": "accepted"}).status_code == 405


def test_a_double_accept_of_an_ending_says_accepted_twice_and_logs_one_decision(client, researcher):
    """A double click (the form posted twice): the second post is the same review again,
    so it records nothing and says what the first said. Before, it logged nothing but
    said "This ending is already a story."; a sentence's logged the decision twice."""
    world = writing_world(researcher)
    client.force_login(researcher)
    url = reverse("writing:ending_review", args=[world["ending_pk"]])
    for _ in range(2):
        page = client.post(url, {"decision": "accepted", "edited_text": ""}, follow=True)
        assert [str(m) for m in page.context["messages"]] == ["Accepted."]
    ending = Ending.objects.get(pk=world["ending_pk"])
    assert ending.decision == "accepted" and ending.story_id is not None
    assert ReviewDecision.objects.filter(ending=ending).count() == 1
