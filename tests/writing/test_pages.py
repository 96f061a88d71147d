"""The writing pages with the test client: writers through the study link, researchers
through review, precontext, clean-up and study creation."""

from __future__ import annotations

import pytest
from django.urls import reverse

from studies.models import Participant, Study
from tests.llm_server import LLMServer, Reply
from tests.studies.helpers import pid
from tests.studies.test_participant_views import arrive, qualify_by_post
from tests.writing.helpers import (
    SENTENCES,
    llm_endpoint,
    make_pool,
    open_writing_study,
    writing_world,
)
from writing.models import Cleanup, Draw, Ending, Precontext, SensePair, Sentence

pytestmark = pytest.mark.django_db


def test_a_qualified_writer_lands_on_the_sentence_page_and_a_refused_text_survives_reload(
    client,
):
    make_pool()
    study = open_writing_study(Study.Activity.SENTENCES, slug="w", per=5)
    arrive(client, study, pid(1))
    page = client.get(reverse("participate:qualification", args=[study.slug]))
    assert b"most plausible meaning" in page.content
    qualify_by_post(client, study)
    page = client.get(reverse("participate:arrive", args=[study.slug]), follow=True)
    assert page.redirect_chain[-1][0] == reverse("write:sentences", args=[study.slug])
    assert b"Completed 0 out of 5 sentences" in page.content
    draw = Draw.objects.get(status="open")
    word = draw.pair.homonym.form
    url = reverse("write:sentences", args=[study.slug])
    refused = client.post(url, {"draw": draw.pk, "text": f"A {word} and a {word.upper()}."})
    assert refused.status_code == 400 and b"exactly once" in refused.content
    again = client.get(url)
    assert f"A {word} and a {word.upper()}.".encode() in again.content
    client.post(url, {"draw": draw.pk, "action": "skip"})
    assert Draw.objects.get(pk=draw.pk).status == "skipped"
    for n in range(5):
        assert f"Completed {n} out of 5".encode() in client.get(url).content
        current = Draw.objects.get(status="open")
        done = client.post(url, {"draw": current.pk, "text": SENTENCES[current.pair.homonym.form]})
        assert done.status_code == 303
    final = client.get(url, follow=True)
    assert b"WRITE123" in final.content
    assert Participant.objects.get().status == Participant.Status.FINISHED
    assert Sentence.objects.count() == 5


def test_an_ending_with_the_word_is_refused_with_a_clear_message_and_kept(client, researcher):
    world = writing_world(researcher)
    study = world["ending_study"]
    arrive(client, study, pid(3))
    qualify_by_post(client, study)
    url = reverse("write:endings", args=[study.slug])
    page = client.get(url)
    assert b"Finished Samples: 0/1" in page.content
    slot = Participant.objects.get(prolific_pid=pid(3)).ending_slots.get()
    word = slot.written.setup.homonym.form
    refused = client.post(
        url, {"slot": slot.pk, "text": f"In the end the {word} was gone.", "comment": "hm, hard"}
    )
    assert refused.status_code == 400
    assert f"must not contain the word &quot;{word}&quot;".encode() in refused.content
    reloaded = client.get(url).content
    assert f"In the end the {word} was gone.".encode() in reloaded and b"hm, hard" in reloaded
    done = client.post(url, {"slot": slot.pk, "text": "In the end it was all gone."})
    assert b"WRITE123" in client.get(done["Location"], follow=True).content


def test_researchers_review_generate_accept_and_clean_up(client, researcher, settings):
    world = writing_world(researcher)
    client.force_login(researcher)
    for name in ("home", "pool", "sentences", "endings", "setups"):
        assert client.get(reverse(f"writing:{name}")).status_code == 200
    detail = client.get(reverse("studies:detail", args=[world["ending_study"].pk]))
    assert b"Ending writing" in detail.content and b"Preview the writing page" in detail.content
    rows = detail.context["participant_page"].object_list
    assert [p.n_rated for p in rows] == [1]  # one ending written
    api = client.get(f"/api/v1/studies/{world['sentence_study'].slug}/")
    assert api.json()["activity"] == "sentences"
    ending_url = reverse("writing:ending", args=[world["ending_pk"]])
    page = client.get(ending_url)
    assert b"<ins>They </ins>" in page.content or b"<ins>They" in page.content
    cleanup = Cleanup.objects.get()
    accept = reverse("writing:ending_cleanup_accept", args=[world["ending_pk"]])
    client.post(accept, {"cleanup": cleanup.pk})
    ending = Ending.objects.get()
    assert ending.text == "they were happy with how it went."
    assert ending.final_text == "They were happy with how it went."
    review_url = reverse("writing:ending_review", args=[world["ending_pk"]])
    client.post(review_url, {"decision": "rejected", "reason": ""})
    assert Ending.objects.get().decision == "pending"  # a rejection needs a reason
    client.post(review_url, {"decision": "rejected", "reason": "vague"})
    assert Ending.objects.get().decision == "rejected"
    assert Ending.objects.count() == 1


@pytest.mark.parametrize(
    "name, pending, accepted",
    [("sentences", [], ["accepted"]), ("endings", ["pending"], [])],
)
def test_the_review_lists_show_pending_by_default_and_filter_by_decision(
    client, researcher, name, pending, accepted
):
    writing_world(researcher)  # one accepted sentence, one pending ending
    client.force_login(researcher)

    def shown(**query) -> tuple[str, list[str]]:
        context = client.get(reverse(f"writing:{name}"), query).context
        return context["decision"], [item.decision for item in context[name]]

    assert shown() == ("pending", pending)
    assert shown(decision="accepted") == ("accepted", accepted)
    assert shown(decision="all") == shown(decision="nonsense") == ("", pending + accepted)


def test_the_pool_takes_a_file_and_flags_pairs(client, researcher):
    client.force_login(researcher)
    text = (
        "word\tmeaning_1\texample_1\tpos_1\tmeaning_2\texample_2\tpos_2\n"
        "bank\ta financial institution\t\tnoun\tsloping land\t\tnoun\n"
        "bear\ta large mammal\t\tnoun\tto carry\t\tverb\n"
    )
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("pool.tsv", text.encode())
    client.post(reverse("writing:pool_import"), {"file": upload, "flag_pos": "on"})
    assert SensePair.objects.count() == 2
    assert SensePair.objects.get(homonym__form="bear").excluded
    bank = SensePair.objects.get(homonym__form="bank")
    client.post(reverse("writing:pair_flag", args=[bank.pk]))
    assert SensePair.objects.get(pk=bank.pk).excluded


def test_a_precontext_is_generated_through_the_named_endpoint_and_accepted(
    client, researcher, settings, django_capture_on_commit_callbacks
):
    from ambisite.celery import app
    from tests.writing.helpers import qualified_writer
    from writing import services

    make_pool()
    study = open_writing_study(Study.Activity.SENTENCES, slug="w", per=5)
    writer = qualified_writer(study, 1)
    draw = services.draw_current(participant=writer)
    sentence = services.sentence_submit(
        participant=writer, draw_id=draw.pk, text=SENTENCES[draw.pair.homonym.form]
    )
    client.force_login(researcher)
    url = reverse("writing:sentence", args=[sentence.pk])
    client.post(f"{url}review/", {"decision": "accepted", "edited_text": ""})
    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    try:
        with LLMServer() as server, django_capture_on_commit_callbacks(execute=True):
            llm_endpoint(settings, server)
            server.script(Reply.text("One. Two. Three."))
            client.post(f"{url}precontexts/generate/", {"endpoint": "test", "model": "m"})
    finally:
        app.conf.task_always_eager = before
    row = Precontext.objects.get(sentence=sentence)
    assert (row.status, row.text, row.prompt_version) == (
        "done",
        "One. Two. Three.",
        "ambistory-b2-precontext-v1",
    )
    assert b"One. Two. Three." in client.get(url).content
    client.post(f"{url}precontexts/accept/", {"precontext": row.pk})
    assert Sentence.objects.get().written.setup.precontext == "One. Two. Three."


def test_the_preview_shows_both_writing_pages_checks_texts_and_stores_nothing(client, researcher):
    world = writing_world(researcher)
    client.force_login(researcher)
    sentences, endings = world["sentence_study"], world["ending_study"]
    page = client.get(reverse("studies:preview_qualification", args=[sentences.pk]))
    assert b"most plausible meaning" in page.content
    answers = {f"q{q.pk}": q.expected for q in sentences.check_questions.all()}
    passed = client.post(reverse("studies:preview_qualification", args=[sentences.pk]), answers)
    assert passed["Location"] == reverse("writing:preview", args=[sentences.pk])
    url = reverse("writing:preview", args=[sentences.pk])
    page = client.get(url)
    assert b"A different word, please!" in page.content and b"preview-flag" in page.content
    pair = SensePair.objects.get(pk=page.context["pair"].pk)
    word = pair.homonym.form
    before = (Draw.objects.count(), Sentence.objects.count())
    refused = client.post(url, {"draw": pair.pk, "text": f"{word} and {word}, twice over."})
    assert b"exactly once" in refused.content
    fine = client.post(url, {"draw": pair.pk, "text": SENTENCES[word]})
    assert b"would be saved" in fine.content
    assert (Draw.objects.count(), Sentence.objects.count()) == before
    page = client.get(reverse("writing:preview", args=[endings.pk]))
    assert b"Write an ending sentence" in page.content
    ending_word = page.context["row"].homonym
    refused = client.post(
        reverse("writing:preview", args=[endings.pk]), {"text": f"The {ending_word} left."}
    )
    assert b"must not contain" in refused.content
    assert Ending.objects.count() == 1


def test_a_writer_past_the_time_limit_gets_the_time_up_page_with_the_code_after_writing(client):
    from datetime import timedelta

    from django.utils import timezone

    make_pool()
    study = open_writing_study(Study.Activity.SENTENCES, slug="w", per=5)
    arrive(client, study, pid(1))
    qualify_by_post(client, study)
    url = reverse("write:sentences", args=[study.slug])
    client.get(url)
    draw = Draw.objects.get(status="open")
    client.post(url, {"draw": draw.pk, "text": SENTENCES[draw.pair.homonym.form]})
    late = timezone.now() - timedelta(minutes=study.time_limit_minutes + 1)
    Participant.objects.update(started_at=late)
    page = client.get(url, follow=True)
    assert page.redirect_chain[-1][0] == reverse("participate:timed_out", args=[study.slug])
    assert b"WRITE123" in page.content
    assert Participant.objects.get().status == Participant.Status.TIMED_OUT
    assert Sentence.objects.count() == 1


def test_flagging_a_pair_twice_leaves_it_flagged_and_a_stale_put_back_leaves_it_in(
    client, researcher
):
    """The pool's buttons say what they want (flag out / put back), so a double click or a
    form sent from a stale page does not undo what it asks for."""
    client.force_login(researcher)
    (bank, *_) = make_pool()
    url = reverse("writing:pair_flag", args=[bank.pk])
    client.post(url, {"excluded": "1", "reason": "Too easy"})
    client.post(url, {"excluded": "1", "reason": "Too easy"})  # the double click
    bank.refresh_from_db()
    assert bank.excluded and bank.exclusion_reason == "Too easy"
    client.post(url, {"excluded": "0"})
    client.post(url, {"excluded": "0"})  # a second tab's stale "Put back"
    bank.refresh_from_db()
    assert not bank.excluded and bank.exclusion_reason == ""
