"""writing/examples.py and jobs.example_generate (issue 31): an example sentence for each
sense of a pool pair, asked of an OpenAI-protocol endpoint (the local fake server) with the
versioned prompt, as a Celery job; a researcher takes it (optionally edited: it becomes the
sense's example, the old text kept as a version) or rejects it."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotations.models import Sample, Sense, TextVersion
from tests.llm_server import LLMServer, Reply
from tests.writing.helpers import llm_endpoint, make_pool
from writing import examples, services
from writing.models import SenseExample

pytestmark = pytest.mark.django_db

# The prompt as it must reach the model for the pair below, written out in full here (not
# built from writing.defaults), so a changed prompt text fails until it gets a new version.
PROMPT_CLUB_1 = (
    'Write one short example sentence in which the word "club" has the following meaning: '
    '"a team or association of people".\n\n'
    'The word "club" can also mean "a heavy stick used as a weapon". The sentence should '
    "make clear that this other meaning is not intended.\n\n"
    'Use the word "club" exactly once, written exactly like this. Use simple words and a '
    "simple sentence structure.\n\n"
    "Return only the sentence, do not return anything else."
)


@pytest.fixture
def eager():
    from ambisite.celery import app

    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before


def _club():
    pair, _ = services.pair_add(
        form="club",
        gloss_a="a team or association of people",
        gloss_b="a heavy stick used as a weapon",
    )
    return pair


def _answers(body: dict) -> Reply:
    meaning = "team" if "association" in body["messages"][0]["content"].split("\n")[0] else "stick"
    return Reply.text(
        "  She joined the chess club.  " if meaning == "team" else "He swung the club."
    )


def _generate(pair, settings, capture, researcher=None) -> tuple[list[SenseExample], list]:
    with LLMServer() as server:
        llm_endpoint(settings, server)
        server.responder = _answers
        with capture(execute=True):
            rows = examples.examples_request(pair=pair, endpoint="test", model="m", by=researcher)
        requests = server.requests
    for row in rows:
        row.refresh_from_db()
    return rows, requests


def test_each_sense_gets_an_example_from_the_endpoint_with_the_versioned_prompt(
    researcher, settings, eager, django_capture_on_commit_callbacks
):
    pair = _club()
    rows, requests = _generate(pair, settings, django_capture_on_commit_callbacks, researcher)
    assert [r.sense_id for r in rows] == [pair.sense_a_id, pair.sense_b_id]
    assert [(r.status, r.text) for r in rows] == [
        ("suggested", "She joined the chess club."),
        ("suggested", "He swung the club."),
    ]
    assert {r.prompt_version for r in rows} == {"ambisite-sense-example-v1"}
    assert (rows[0].endpoint, rows[0].model, rows[0].served_model) == ("test", "m", "served-m")
    assert rows[0].created_by == researcher and rows[0].finished_at is not None
    first = requests[0].body
    assert first["messages"] == [{"role": "user", "content": PROMPT_CLUB_1}]  # one user message
    assert first["temperature"] == 0
    assert "a team or association" in requests[1].body["messages"][0]["content"].split("\n")[2]
    assert Sense.objects.get(pk=pair.sense_a_id).example_sentence == ""  # not before review


def test_taking_an_example_makes_it_the_senses_example_and_keeps_the_old_text(
    researcher, settings, eager, django_capture_on_commit_callbacks
):
    pair = _club()
    (team, stick), _ = _generate(pair, settings, django_capture_on_commit_callbacks)
    examples.example_decide(
        example=team, accept=True, edited_text="They met at the club on Fridays.", by=researcher
    )
    examples.example_decide(example=stick, accept=False, by=researcher)
    sense_a, sense_b = Sense.objects.get(pk=pair.sense_a_id), Sense.objects.get(pk=pair.sense_b_id)
    assert (sense_a.example_sentence, sense_a.version) == ("They met at the club on Fridays.", 2)
    old = TextVersion.objects.get(kind="sense", object_id=sense_a.pk)
    assert old.text["example_sentence"] == "" and old.replaced_by == researcher
    assert sense_b.example_sentence == ""
    team.refresh_from_db()
    assert (team.status, team.accepted_text, team.decided_by) == (
        "accepted",
        "They met at the club on Fridays.",
        researcher,
    )
    with pytest.raises(services.WritingError, match="not waiting for a decision"):
        examples.example_decide(example=team, accept=True)  # decided once


def test_an_example_without_the_word_or_for_a_rated_sense_is_not_taken(
    settings, eager, django_capture_on_commit_callbacks
):
    pair = _club()
    (team, stick), _ = _generate(pair, settings, django_capture_on_commit_callbacks)
    with pytest.raises(services.WritingError, match='must use the word "club"'):
        examples.example_decide(example=team, accept=True, edited_text="They met on Fridays.")
    from annotations.importers import ambistory_import, parse_ambistory
    from tests.factories import ambistory_setup  # a rated dataset that uses the sense

    ambistory_import(samples=parse_ambistory(ambistory_setup(0)), split="dev")
    Sample.objects.filter(pk=Sample.objects.first().pk).update(sense=pair.sense_b)
    with pytest.raises(services.WritingError, match="This sense is rated in"):
        examples.example_decide(example=stick, accept=True)
    assert Sense.objects.get(pk=pair.sense_b_id).example_sentence == ""
    stick.refresh_from_db()
    assert stick.status == "suggested"  # nothing written: still waiting


def test_a_double_click_queues_once_and_a_failing_endpoint_is_recorded(settings):
    pair = _club()
    with LLMServer() as server:
        llm_endpoint(settings, server)
        first = examples.examples_request(pair=pair, endpoint="test", model="m")
        again = examples.examples_request(pair=pair, endpoint="test", model="m")  # not run yet
        assert [r.pk for r in again] == [r.pk for r in first]
        assert SenseExample.objects.count() == 2
        from writing import jobs

        server.script(*[Reply.server_error()] * 3)
        failed = jobs.example_generate(example_id=first[0].pk)
    assert failed.status == "failed" and "500" in failed.error


def test_examples_for_every_pair_missing_one(settings):
    make_pool()  # every sense has an example
    club = _club()
    with LLMServer() as server:
        llm_endpoint(settings, server)
        assert examples.examples_request_missing(endpoint="test", model="m") == 1
    assert set(SenseExample.objects.values_list("pair_id", flat=True)) == {club.pk}
    with pytest.raises(services.WritingError, match="no LLM endpoint 'nope'"):
        examples.examples_request_missing(endpoint="nope", model="m")


def test_the_pair_page_generates_takes_and_rejects(
    client, researcher, settings, eager, django_capture_on_commit_callbacks
):
    pair = _club()
    client.force_login(researcher)
    page = client.get(reverse("writing:pair", args=[pair.pk])).content.decode()
    assert "none yet" in page and "ambisite-sense-example-v1" in page
    with LLMServer() as server:
        llm_endpoint(settings, server)
        server.responder = _answers
        with django_capture_on_commit_callbacks(execute=True):
            queued = client.post(
                reverse("writing:examples_generate", args=[pair.pk]),
                {"endpoint": "test", "model": "m"},
                follow=True,
            )
    assert "Queued" in str(list(queued.context["messages"])[0])
    team, stick = SenseExample.objects.order_by("id")
    shown = client.get(reverse("writing:pair", args=[pair.pk])).content.decode()
    assert "She joined the chess club." in shown and f'id="suggestion-{team.pk}"' in shown
    accept = reverse("writing:example_accept", args=[pair.pk])
    client.post(accept, {"example": team.pk, "text": "She joined the chess club."})
    client.post(reverse("writing:example_reject", args=[pair.pk]), {"example": stick.pk})
    other = _other_pair_example()
    assert client.post(accept, {"example": other.pk}).status_code == 404  # not this pair's
    assert Sense.objects.get(pk=pair.sense_a_id).example_sentence == "She joined the chess club."
    assert SenseExample.objects.get(pk=stick.pk).status == "rejected"
    pool = client.get(reverse("writing:pool")).content.decode()
    assert reverse("writing:pair", args=[pair.pk]) in pool and 'id="generate-missing"' in pool


def _other_pair_example() -> SenseExample:
    pair, _ = services.pair_add(form="bow", gloss_a="a knot", gloss_b="bend forward")
    return SenseExample.objects.create(
        sense=pair.sense_a, pair=pair, prompt_version="ambisite-sense-example-v1", text="x",
        status="suggested",
    )  # fmt: skip
