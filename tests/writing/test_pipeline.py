"""The writing pipeline through its services: sentences, precontexts, endings, review,
the rating study, and nothing lost."""

from __future__ import annotations

import pytest

from annotations.models import Sample, Story
from studies.models import Participant, Study
from tests.llm_server import LLMServer, Reply
from tests.writing.helpers import (
    SENTENCES,
    llm_endpoint,
    make_pool,
    open_writing_study,
    qualified_writer,
    writing_world,
)
from writing import review, services
from writing.models import Draw, Ending, Precontext, ReviewDecision, Sentence

pytestmark = pytest.mark.django_db

PRECONTEXT = "Ann had a long week. She needed a break. She planned a quiet weekend."


@pytest.fixture
def eager():
    from ambisite.celery import app

    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before


def write_sentences(participant: Participant, n: int) -> list[Sentence]:
    written = []
    for _ in range(n):
        draw = services.draw_current(participant=participant)
        text = SENTENCES[draw.pair.homonym.form]
        written.append(
            services.sentence_submit(participant=participant, draw_id=draw.pk, text=text)
        )
    return written


def test_a_writer_sees_the_same_word_after_a_reload_and_a_refused_text_is_kept():
    make_pool()
    study = open_writing_study(Study.Activity.SENTENCES, slug="w", per=5)
    writer = qualified_writer(study, 1)
    draw = services.draw_current(participant=writer)
    assert services.draw_current(participant=writer).pk == draw.pk
    form = draw.pair.homonym.form
    with pytest.raises(services.Refused, match="exactly once"):
        services.sentence_submit(
            participant=writer, draw_id=draw.pk, text=f"The {form} and the {form} again."
        )
    draw.refresh_from_db()
    assert draw.draft == f"The {form} and the {form} again."
    other = services.draw_skip(participant=writer, draw_id=draw.pk)
    assert other.pair_id != draw.pair_id
    assert Draw.objects.get(pk=draw.pk).status == Draw.Status.SKIPPED


def test_five_sentences_finish_the_writer_with_the_completion_code():
    make_pool()
    study = open_writing_study(Study.Activity.SENTENCES, slug="w", per=5)
    writer = qualified_writer(study, 1)
    write_sentences(writer, 5)
    writer.refresh_from_db()
    assert writer.status == Participant.Status.FINISHED
    assert Sentence.objects.filter(participant=writer).count() == 5


def test_a_flagged_pair_is_never_drawn_and_pos_mismatch_is_flagged_on_import():
    pair, _ = services.pair_add(
        form="bear", gloss_a="a large mammal", gloss_b="to carry", pos_a="noun", pos_b="verb"
    )
    assert pair.excluded and "parts of speech" in pair.exclusion_reason
    study = open_writing_study(Study.Activity.SENTENCES, slug="w", per=5)
    writer = qualified_writer(study, 1)
    with pytest.raises(services.WritingError, match="no more words"):
        services.draw_current(participant=writer)


def test_review_never_deletes_text_and_logs_every_decision(researcher):
    make_pool()
    study = open_writing_study(Study.Activity.SENTENCES, slug="w", per=2)
    writer = qualified_writer(study, 1)
    first, second = write_sentences(writer, 2)
    with pytest.raises(services.WritingError, match="reason"):
        review.sentence_review(sentence=first, decision="rejected", by=researcher)
    review.sentence_review(
        sentence=first, decision="rejected", reason="not ambiguous", by=researcher
    )
    form = second.pair.homonym.form
    review.sentence_review(
        sentence=second,
        decision="accepted",
        edited_text=f"In the end, the {form} was fine.",
        by=researcher,
    )
    second.refresh_from_db()
    assert second.text == SENTENCES[form] and second.final_text.startswith("In the end")
    with pytest.raises(services.WritingError):  # an accepted edit keeps the writers' rule
        review.sentence_review(
            sentence=second, decision="accepted", edited_text="No word here.", by=researcher
        )
    assert Sentence.objects.count() == 2
    log = list(ReviewDecision.objects.order_by("id").values_list("decision", "reason"))
    assert log == [("rejected", "not ambiguous"), ("accepted", "")]


def test_an_accepted_edit_of_an_ending_may_not_use_the_word_and_logs_nothing(researcher):
    ending = Ending.objects.get(pk=writing_world(researcher)["ending_pk"])
    form = ending.slot.written.setup.homonym.form
    with pytest.raises(services.WritingError, match="must not contain"):
        review.ending_review(
            ending=ending, decision="accepted", edited_text=f"They liked the {form}.", by=researcher
        )
    assert Ending.objects.get().decision == "pending"
    assert not ReviewDecision.objects.filter(ending=ending).exists()


def test_the_whole_pipeline_ends_in_a_rating_study_with_six_samples_per_setup(
    researcher, settings, eager, django_capture_on_commit_callbacks
):
    make_pool()
    study = open_writing_study(Study.Activity.SENTENCES, slug="w", per=2)
    sentences = write_sentences(qualified_writer(study, 1), 2)
    with LLMServer() as server:
        llm_endpoint(settings, server)
        server.script(Reply.text(PRECONTEXT), Reply.text(PRECONTEXT + " Then it rained."))
        written = []
        for sentence in sentences:
            sentence = review.sentence_review(sentence=sentence, decision="accepted", by=researcher)
            with django_capture_on_commit_callbacks(execute=True):
                row = review.precontext_request(
                    sentence=sentence, endpoint="test", model="m", by=researcher
                )
            row.refresh_from_db()
            assert row.status == Precontext.Status.DONE, row.error
            assert row.prompt_version == "ambistory-b2-precontext-v1"
            written.append(review.setup_make(precontext=row, by=researcher))
        prompt = server.requests[0].body["messages"][0]["content"]
        assert sentences[0].final_text in prompt
        assert "Both meanings should still be equally as plausible." in prompt
    endings = open_writing_study(Study.Activity.ENDINGS, slug="e", per=2, setups=written)
    for n in (1, 2):
        writer = qualified_writer(endings, 10 + n)
        for slot in services.ending_slots_hold(participant=writer):
            ending = services.ending_submit(
                participant=writer, slot_id=slot.pk, text=f"It all ended well for case {slot.pk}."
            )
            review.ending_review(ending=ending, decision="accepted", by=researcher)
        writer.refresh_from_db()
        assert writer.status == Participant.Status.FINISHED
    ready = list(review.ready_setups())
    assert len(ready) == 2
    rating = review.rating_study_create(
        written=ready, title="Rate", slug="rate", dataset="mine", split="s1", by=researcher
    )
    assert rating.activity == Study.Activity.RATING
    per_setup = Sample.objects.filter(studies=rating).values_list("story__setup_id", flat=True)
    assert sorted(per_setup) == sorted([w.setup_id for w in written] * 6)
    assert Story.objects.filter(setup__in=[w.setup for w in written], ending="").count() == 2
    with pytest.raises(services.WritingError, match="already samples of mine/s1"):
        review.rating_study_create(
            written=ready, title="Again", slug="again", dataset="mine", split="s2", by=researcher
        )


def test_ending_writers_get_different_setups_first_and_a_timed_out_writers_slots_come_back(
    researcher,
):
    make_pool()
    study = open_writing_study(Study.Activity.SENTENCES, slug="w", per=3)
    written = []
    for sentence in write_sentences(qualified_writer(study, 1), 3):
        sentence = review.sentence_review(sentence=sentence, decision="accepted", by=researcher)
        row = review.precontext_write(sentence=sentence, text=PRECONTEXT, by=researcher)
        written.append(review.setup_make(precontext=row, by=researcher))
    endings = open_writing_study(Study.Activity.ENDINGS, slug="e", per=3, setups=written)
    first = qualified_writer(endings, 11)
    held = services.ending_slots_hold(participant=first)
    assert len({slot.written_id for slot in held}) == 3  # three setups, one sense each
    second = qualified_writer(endings, 12)
    other = services.ending_slots_hold(participant=second)
    assert not {s.pk for s in held} & {s.pk for s in other}
    assert len(other) == 3
    Participant.objects.filter(pk=first.pk).update(status=Participant.Status.TIMED_OUT)
    third = qualified_writer(endings, 13)
    assert {s.pk for s in services.ending_slots_hold(participant=third)} == {s.pk for s in held}
    with pytest.raises(services.WritingError, match="no stories left"):
        services.ending_slots_hold(participant=qualified_writer(endings, 14))


def test_the_b1_clean_up_suggests_accepts_and_rejects_through_the_endpoint(
    researcher, settings, eager, django_capture_on_commit_callbacks
):
    make_pool()
    study = open_writing_study(Study.Activity.SENTENCES, slug="w", per=2)
    first, second = write_sentences(qualified_writer(study, 1), 2)
    with LLMServer() as server:
        llm_endpoint(settings, server)
        server.responder = lambda body: Reply.text("  Fixed text here.  ")
        with django_capture_on_commit_callbacks(execute=True):
            suggestion = review.cleanup_request(
                sentence=first, endpoint="test", model="m", by=researcher
            )
            other = review.cleanup_request(sentence=second, endpoint="test", model="m")
        prompt = server.requests[0].body["messages"][0]["content"]
    assert prompt.startswith("Correct the following sentence by fixing the following:")
    assert f"The sentence is: {first.text}" in prompt
    assert "DO NOT CHANGE ANYTHING ELSE" in prompt
    suggestion.refresh_from_db()
    assert (suggestion.status, suggestion.suggested) == ("suggested", "Fixed text here.")
    assert suggestion.prompt_version == "ambistory-b1-sentence-v1"
    review.cleanup_decide(cleanup=suggestion, accept=True, by=researcher)
    review.cleanup_decide(cleanup=other, accept=False, by=researcher)
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.text, first.final_text) == (
        SENTENCES[first.pair.homonym.form],
        "Fixed text here.",
    )
    assert second.final_text == second.text
    assert ReviewDecision.objects.filter(sentence=first).count() == 1


def test_a_clean_up_suggested_before_an_edit_cannot_undo_it(
    researcher, settings, eager, django_capture_on_commit_callbacks
):
    """Accepting a suggestion made from an older text would put it over the researcher's
    later edit (the edit only in the log): refused, the edit and the suggestion stay."""
    make_pool()
    study = open_writing_study(Study.Activity.SENTENCES, slug="w", per=1)
    (sentence,) = write_sentences(qualified_writer(study, 1), 1)
    with LLMServer() as server:
        llm_endpoint(settings, server)
        server.responder = lambda body: Reply.text("Fixed text here.")
        with django_capture_on_commit_callbacks(execute=True):
            suggestion = review.cleanup_request(
                sentence=sentence, endpoint="test", model="m", by=researcher
            )
    suggestion.refresh_from_db()
    assert suggestion.status == "suggested"
    edited = f"{sentence.text} (edited by hand)"
    review.sentence_review(
        sentence=sentence, decision="accepted", edited_text=edited, by=researcher
    )
    with pytest.raises(services.WritingError, match="edited after this clean-up"):
        review.cleanup_decide(cleanup=suggestion, accept=True, by=researcher)
    sentence.refresh_from_db()
    suggestion.refresh_from_db()
    assert (sentence.final_text, suggestion.status) == (edited, "suggested")
    review.cleanup_decide(cleanup=suggestion, accept=False, by=researcher)  # rejecting is fine


def test_an_unknown_endpoint_or_model_is_refused_before_anything_is_stored(researcher, settings):
    make_pool()
    study = open_writing_study(Study.Activity.SENTENCES, slug="w", per=1)
    (sentence,) = write_sentences(qualified_writer(study, 1), 1)
    sentence = review.sentence_review(sentence=sentence, decision="accepted", by=researcher)
    settings.LLM_ENDPOINTS = {
        "test": {"base_url": "http://127.0.0.1:9/v1", "api_key_env": "", "models": ["only"]}
    }
    with pytest.raises(services.WritingError, match="no LLM endpoint 'nope'"):
        review.precontext_request(sentence=sentence, endpoint="nope", model="only")
    with pytest.raises(services.WritingError, match="does not allow model"):
        review.precontext_request(sentence=sentence, endpoint="test", model="other")
    assert not Precontext.objects.exists()


def test_a_written_sentence_sent_again_with_other_text_is_refused_and_kept_as_first_sent():
    """A writer who goes back in the browser and sends a written word's sentence again with
    other text is told it was not saved (before: the new text vanished without a word)."""
    make_pool()
    study = open_writing_study(Study.Activity.SENTENCES, slug="w", per=5)
    writer = qualified_writer(study, 1)
    draw = services.draw_current(participant=writer)
    first = SENTENCES[draw.pair.homonym.form]
    services.sentence_submit(participant=writer, draw_id=draw.pk, text=first)
    assert services.sentence_submit(participant=writer, draw_id=draw.pk, text=first).text == first
    with pytest.raises(services.Refused, match="already saved as you first sent it"):
        services.sentence_submit(
            participant=writer, draw_id=draw.pk, text=first.replace(".", ", I think.")
        )
    assert list(Sentence.objects.filter(draw=draw).values_list("text", flat=True)) == [first]
