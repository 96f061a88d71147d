"""Qualification questions drawn per participant from the study's pool (studies.qualification):
a stable draw, graded against the study's own key, which no public page or file carries."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from studies import defaults, qualification, services
from studies.models import CheckQuestion, Participant

from .helpers import open_study, pid
from .test_participant_views import arrive, moved_on

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
OWN = {
    "homonym": "pitch",
    "precontext": "The band tuned their instruments for an hour before the show.",
    "sentence": "The singer could not find the right pitch.",
    "meaning": "a field for playing football",
    "example_sentence": "",
    "expected": 1,
    "tolerance": 0,
    "as_attention_check": False,
}


def shown_in_order(html: str) -> list[int]:
    return list(dict.fromkeys(int(n) for n in re.findall(r'name="q(\d+)"', html)))


def started(study, n: int = 1) -> tuple[Client, Participant]:
    client = Client()
    assert moved_on(arrive(client, study, pid(n)))
    return client, Participant.objects.get(prolific_pid=pid(n))


def test_a_participants_questions_are_drawn_once_and_stay_the_same_on_every_reload():
    study = open_study()
    client, participant = started(study)
    url = reverse("participate:qualification", args=[study.slug])
    first = shown_in_order(client.get(url).content.decode())
    again = shown_in_order(client.get(url).content.decode())
    assert first == again and len(first) == study.questions_per_participant == 4
    participant.refresh_from_db()
    assert participant.qualification_draw == first  # stored, in the order shown
    drawn = CheckQuestion.objects.in_bulk(first)
    stories = {qualification.story_of(q) for q in drawn.values()}
    assert len(stories) == 4  # one question per story, never both meanings of one


def test_the_draw_differs_between_participants_in_questions_or_order():
    study = open_study(8, per_participant=2)
    draws = set()
    for n in range(1, 7):
        client, _ = started(study, n)
        draws.add(
            tuple(shown_in_order(client.get(f"/s/{study.slug}/qualification/").content.decode()))
        )
    assert len(draws) > 1


def test_the_draw_takes_the_number_of_questions_set_on_the_study():
    study = open_study(questions_per_participant=2)
    _, participant = started(study)
    assert len(qualification.participant_questions(participant)) == 2
    participant.refresh_from_db()
    assert len(participant.qualification_draw) == 2


def own_study(**fields):
    """A study whose pool is the paper's stories with a changed key plus one of its own."""
    study = open_study(questions_per_participant=0, **fields)
    study.check_questions.filter(meaning="solid; not soft").update(expected=3, tolerance=0)
    CheckQuestion.objects.create(study=study, order=9, **OWN)
    return study


def test_answers_are_graded_against_the_studys_own_key_not_the_public_defaults():
    study = own_study()
    public = {
        (q["homonym"], q["meaning"]): q["expected"]
        for q in defaults.for_kind("plausibility").checks
    }
    client, participant = started(study)
    drawn = qualification.participant_questions(participant)
    assert len(drawn) == 5  # 0: one from each of the four paper stories and the study's own
    answers = {f"q{q.pk}": public.get((q.homonym, q.meaning), 5) for q in drawn}
    client.post(reverse("participate:qualification", args=[study.slug]), answers)
    participant.refresh_from_db()
    assert participant.status == Participant.Status.SCREENED_OUT  # the own story wants 1
    # the study's key: recorded with the draw
    assert set(participant.qualification_answers) == {str(q.pk) for q in drawn}

    client, participant = started(study, 2)
    drawn = qualification.participant_questions(participant)
    answers = {f"q{q.pk}": q.expected for q in drawn}
    client.post(reverse("participate:qualification", args=[study.slug]), answers)
    participant.refresh_from_db()
    assert participant.status == Participant.Status.QUALIFIED
    assert participant.qualification_answers == {str(q.pk): q.expected for q in drawn}


def test_the_public_default_for_a_changed_question_fails():
    study = own_study()
    hard = study.check_questions.get(meaning="solid; not soft")
    _, participant = started(study)
    participant.qualification_draw = [hard.pk]
    participant.save(update_fields=["qualification_draw"])
    assert not services.participant_qualify(participant=participant, answers={hard.pk: 1})
    _, other = started(study, 2)
    other.qualification_draw = [hard.pk]
    other.save(update_fields=["qualification_draw"])
    assert services.participant_qualify(participant=other, answers={hard.pk: 3})


def test_right_answers_to_questions_not_drawn_do_not_count():
    study = open_study(questions_per_participant=1)
    _, participant = started(study)
    drawn = qualification.participant_questions(participant)[0]
    others = {q.pk: q.expected for q in study.check_questions.exclude(pk=drawn.pk)}
    assert not services.participant_qualify(participant=participant, answers=others)


def test_a_question_deleted_after_the_draw_is_replaced_by_a_new_draw():
    study = open_study(questions_per_participant=1)
    _, participant = started(study)
    drawn = qualification.participant_questions(participant)
    CheckQuestion.objects.filter(pk__in=[q.pk for q in drawn]).delete()
    # the next request reads the participant, and its study's questions, again (a study
    # instance reads its questions once: ``selectors.check_questions``)
    participant = Participant.objects.select_related("study").get(pk=participant.pk)
    again = qualification.participant_questions(participant)
    assert len(again) == 1 and again[0].pk != drawn[0].pk
    participant.refresh_from_db()
    assert participant.qualification_draw == [again[0].pk]


def test_a_deleted_drawn_question_is_replaced_so_the_full_count_is_asked():
    study = open_study(questions_per_participant=3)
    _, participant = started(study)
    drawn = qualification.participant_questions(participant)
    assert len(drawn) == 3
    drawn[1].delete()
    participant = Participant.objects.select_related("study").get(pk=participant.pk)
    again = qualification.participant_questions(participant)
    assert len(again) == 3 and again[:2] == [drawn[0], drawn[2]]  # the kept ones first
    assert again[2].pk not in {q.pk for q in drawn}
    assert len({qualification.story_of(q) for q in again}) == 3  # one per story still
    participant.refresh_from_db()
    assert participant.qualification_draw == [q.pk for q in again]


def test_a_relatedness_studys_own_question_can_be_answered_0(client):
    from annotations.models import TaskKind

    from .helpers import BOT_ANSWERS
    from .kinds_helpers import open_kind_study, rawc_samples

    study = open_kind_study(TaskKind.RELATEDNESS, rawc_samples(12), per_participant=2)
    own = CheckQuestion.objects.create(study=study, **{**OWN, "expected": 0})
    assert moved_on(arrive(client, study, pid(1)))
    url = reverse("participate:qualification", args=[study.slug])
    page = client.get(url).content.decode()
    assert f'name="q{own.pk}" value="0"' in page and "What the scores 0&ndash;4 mean" in page
    answers = {f"q{own.pk}": "0"} | {f"bot_{key}": a for key, a in BOT_ANSWERS.items()}
    assert moved_on(client.post(url, answers))
    assert Participant.objects.get().status == Participant.Status.QUALIFIED


def test_grading_takes_the_kinds_rule_for_a_cannot_decide_answer():
    question = CheckQuestion(pk=1, expected=1, tolerance=1)
    assert qualification.grade([question], {1: 0}, "relatedness")  # 0: totally unrelated
    assert not qualification.grade([question], {1: 0}, "use_pair")  # 0: cannot decide


def test_the_preview_shows_the_same_draw_on_every_reload(researcher_client):
    study = open_study()
    url = reverse("studies:preview_qualification", args=[study.pk])
    first = shown_in_order(researcher_client.get(url).content.decode())
    assert len(first) == 4 and first == shown_in_order(researcher_client.get(url).content.decode())
    answers = {f"q{q.pk}": q.expected for q in CheckQuestion.objects.filter(pk__in=first)}
    assert researcher_client.post(url, answers)["Location"].endswith("/preview/rate/0/")


def test_the_writing_variant_offers_both_orders_of_the_two_meanings():
    from writing import defaults as writing_defaults

    pairs = {(q["homonym"], q["meaning"], q["expected"]) for q in writing_defaults.QUALIFICATION}
    assert ("hard", "difficult to understand or solve", 1) in pairs
    assert ("hard", "solid; not soft", 2) in pairs
    assert len(writing_defaults.QUALIFICATION) == 8


# --- the key is nowhere public ------------------------------------------------------------

KEY_NAMES = {"expected", "tolerance", "qualification_answers", "qualification_draw"}


def json_keys(value) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in json_keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in json_keys(v)}
    return set()


def test_the_participant_pages_carry_no_answer_key():
    study = own_study()
    client, participant = started(study)
    for name in ("welcome", "guidelines", "qualification"):
        html = client.get(reverse(f"participate:{name}", args=[study.slug])).content.decode()
        assert not re.search(r"expected|tolerance|data-answer|\bchecked\b", html, re.I), name
    html = client.get(reverse("participate:qualification", args=[study.slug])).content.decode()
    own = study.check_questions.get(homonym="pitch")
    assert f'name="q{own.pk}"' in html and OWN["meaning"] in html  # shown, key not


def test_the_api_its_schema_and_the_exports_carry_no_answer_key(researcher_client):
    study = own_study()
    qualification.participant_questions(started(study)[1])
    for url in (
        "/api/v1/studies/",
        f"/api/v1/studies/{study.slug}/",
        "/api/v1/schema/?format=json",
        reverse("studies:export", args=[study.pk]),
    ):
        response = researcher_client.get(url)
        assert response.status_code == 200, url
        body = b"".join(response.streaming_content) if response.streaming else response.content
        text = body.decode()
        assert OWN["meaning"] not in text, url
        assert not (json_keys(json.loads(text)) & KEY_NAMES), url
        assert "CheckQuestion" not in text, url


PAPER_ANSWERS = re.compile(
    r"(hard|lousy|fan|beat)\W{0,3}\s*(=|→|->|:)\s*[^\n.;]{0,60}(→|->|=)\s*[1-5]", re.I
)


def test_the_docs_and_the_readme_do_not_give_the_default_answers():
    meanings = {q["meaning"] for q in defaults.for_kind("plausibility").checks}
    files = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]
    for path in files:
        text = path.read_text()
        assert not PAPER_ANSWERS.search(text), path
        for meaning in meanings:
            assert meaning not in text, (path, meaning)
