"""The writing pipeline's fixtures: a pool, writing studies, writers, and an LLM endpoint."""

from __future__ import annotations

from studies import services as study_services
from studies.models import Participant, Study
from tests.studies.helpers import pid
from writing import review, services
from writing.models import SensePair

POOL = [
    (
        "bank",
        "a financial institution",
        "She deposited the money at the bank.",
        "sloping land beside a body of water",
        "They fished from the bank of the river.",
    ),
    (
        "bat",
        "a nocturnal mammal capable of sustained flight",
        "A bat hung from the roof.",
        "a club used for hitting a ball",
        "He swung the bat hard.",
    ),
    (
        "pitch",
        "a sports field",
        "The players ran onto the pitch.",
        "the highness or lowness of a sound",
        "She sang at a high pitch.",
    ),
    (
        "date",
        "a meeting arranged in advance",
        "They went out on a date.",
        "sweet edible fruit of the date palm",
        "He ate a date.",
    ),
    (
        "point",
        "the object of an activity",
        "What is the point of this meeting?",
        "sharp end",
        "He carefully carved the point of the stick.",
    ),
    (
        "seal",
        "a marine mammal",
        "A seal swam past.",
        "an emblem pressed into wax",
        "The letter bore the royal seal.",
    ),
    (
        "bark",
        "the sound a dog makes",
        "The bark woke us.",
        "the outer covering of a tree",
        "The bark was rough.",
    ),
]

SENTENCES = {
    "bank": "On Saturday morning, I went to the bank.",
    "bat": "We saw the bat near the old barn.",
    "pitch": "The pitch was perfect that evening.",
    "date": "Alice was looking forward to the date.",
    "point": "He finally got to the point.",
    "seal": "The children were excited to see the seal.",
    "bark": "The bark startled the hikers.",
}


def make_pool() -> list[SensePair]:
    return [
        services.pair_add(form=f, gloss_a=a, example_a=ea, gloss_b=b, example_b=eb)[0]
        for f, a, ea, b, eb in POOL
    ]


def open_writing_study(activity: str, *, slug: str, per: int, setups=None) -> Study:
    study = services.writing_study_create(
        activity=activity,
        title=f"Writing {activity}",
        slug=slug,
        samples_per_participant=per,
        completion_code="WRITE123",
        screenout_code="OUT45678",
        setups=setups,
    )
    return study_services.study_open(study=study)


def qualified_writer(study: Study, n: int) -> Participant:
    participant = study_services.participant_arrive(study=study, pid=pid(n))
    answers = {q.pk: q.expected for q in study.check_questions.all()}
    assert study_services.participant_qualify(participant=participant, answers=answers)
    participant.refresh_from_db()
    return participant


def written_setups(researcher, n: int) -> list:
    """``n`` written setups: accepted sentences of one writer, each with a precontext."""
    study = open_writing_study(Study.Activity.SENTENCES, slug="w", per=n)
    writer = qualified_writer(study, 1)
    written = []
    for k in range(n):
        draw = services.draw_current(participant=writer)
        sentence = services.sentence_submit(
            participant=writer, draw_id=draw.pk, text=SENTENCES[draw.pair.homonym.form]
        )
        sentence = review.sentence_review(sentence=sentence, decision="accepted", by=researcher)
        text = f'Story {k} begins. Something happens, "quoted". Then it goes on.'
        precontext = review.precontext_write(sentence=sentence, text=text, by=researcher)
        written.append(review.setup_make(precontext=precontext, by=researcher))
    return written


def write_endings(written: list, researcher) -> None:
    """Two writers' endings for every setup of ``written``, each accepted: all ready."""
    study = open_writing_study(Study.Activity.ENDINGS, slug="e", per=len(written), setups=written)
    for n in (1, 2):
        writer = qualified_writer(study, 100 + n)
        for slot in services.ending_slots_hold(participant=writer):
            ending = services.ending_submit(
                participant=writer, slot_id=slot.pk, text=f"Ending {slot.pk}: it was über nice."
            )
            review.ending_review(ending=ending, decision="accepted", by=researcher)


def llm_endpoint(settings, server) -> None:
    settings.LLM_ENDPOINTS = {
        "test": {"base_url": server.base_url, "api_key_env": "", "models": ["*"]}
    }


def writing_world(researcher=None) -> dict:
    """One of everything the writing URLs name: a pool, a sentence study with a writer, a
    reviewed sentence with a precontext and a setup, an ending study with an ending, and a
    clean-up suggestion. Returns the ids by URL parameter name."""
    from writing.models import Cleanup

    pairs = make_pool()
    sentence_study = open_writing_study(Study.Activity.SENTENCES, slug="write-s", per=5)
    writer = qualified_writer(sentence_study, 901)
    draw = services.draw_current(participant=writer)
    sentence = services.sentence_submit(
        participant=writer, draw_id=draw.pk, text=SENTENCES[draw.pair.homonym.form]
    )
    sentence = review.sentence_review(sentence=sentence, decision="accepted", by=researcher)
    precontext = review.precontext_write(
        sentence=sentence,
        text="Ann had a long week. She wanted a change. She made a plan.",
        by=researcher,
    )
    written = review.setup_make(precontext=precontext, by=researcher)
    ending_study = open_writing_study(
        Study.Activity.ENDINGS, slug="write-e", per=1, setups=[written]
    )
    ending_writer = qualified_writer(ending_study, 902)
    slot = services.ending_slots_hold(participant=ending_writer)[0]
    ending = services.ending_submit(
        participant=ending_writer, slot_id=slot.pk, text="they were happy with how it went."
    )
    Cleanup.objects.create(
        ending=ending,
        original=ending.text,
        suggested="They were happy with how it went.",
        status=Cleanup.Status.SUGGESTED,
        prompt_version="ambistory-b1-ending-v1",
        endpoint="test",
        model="m",
    )
    return {
        "pair_pk": pairs[0].pk,
        "sentence_pk": sentence.pk,
        "ending_pk": ending.pk,
        "sentence_study": sentence_study,
        "ending_study": ending_study,
    }
