"""A study has one task kind and takes only samples of that kind; a rating's score is
checked against its kind's range by the database."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from annotations.models import Dataset, Rater, Rating, TaskKind, score_range
from studies import services

from .helpers import unrated_setups

pytestmark = pytest.mark.django_db


def test_a_study_is_a_plausibility_study_unless_told_otherwise():
    study = services.study_create(title="t", slug="t", samples=unrated_setups(2))
    assert study.task_kind == TaskKind.PLAUSIBILITY


def test_it_refuses_samples_of_another_kind():
    samples = unrated_setups(2)
    with pytest.raises(services.StudyError, match="only samples of that kind"):
        services.study_create(title="t", slug="t", samples=samples, task_kind=TaskKind.RELATEDNESS)


def test_the_kind_cannot_change_once_the_study_is_open():
    study = services.study_create(title="t", slug="t", samples=unrated_setups(40))
    services.study_open(study=study)
    with pytest.raises(services.StudyError, match="only be changed while"):
        services.study_update(study=study, task_kind=TaskKind.RELATEDNESS)


def test_each_kind_has_its_score_range():
    assert score_range("plausibility") == (1, 5)
    assert score_range("relatedness") == (0, 4)
    assert score_range("sense_choice")[0] == 0


@pytest.mark.parametrize(
    ("kind", "score", "ok"),
    [
        ("plausibility", 0, False),
        ("plausibility", 5, True),
        ("relatedness", 0, True),
        ("relatedness", 5, False),
        ("sense_choice", 1, True),
    ],
)
def test_the_database_checks_a_score_against_its_kind(kind, score, ok):
    sample = unrated_setups(1)[0]
    rater = Rater.objects.create(kind=Rater.Kind.RESEARCHER, pseudonym="r")
    create = lambda: Rating.objects.create(sample=sample, rater=rater, kind=kind, score=score)  # noqa: E731
    if ok:
        create()
    else:
        with pytest.raises(IntegrityError), transaction.atomic():
            create()


def test_samples_know_their_kind():
    sample = unrated_setups(1)[0]
    assert sample.task_kind == Dataset.TaskKind.PLAUSIBILITY


def test_the_study_form_gives_a_relatedness_study_its_own_guidelines(researcher):
    from studies import defaults
    from studies.forms import StudyForm

    from .kinds_helpers import rawc_samples

    split = rawc_samples(4)[0].split
    form = StudyForm(
        {
            "title": "Pairs",
            "slug": "pairs",
            "task_kind": TaskKind.RELATEDNESS,
            "split": split.pk,
            "endings": "all",
            "ratings_per_sample": 3,
            "samples_per_participant": 2,
            "attention_checks_per_batch": 2,
            "time_limit_minutes": 30,
            "completion_code": "C",
            "screenout_code": "S",
            "guidelines": defaults.GUIDELINES,
        }
    )
    assert form.is_valid(), form.errors
    study = services.study_create(samples=form.samples(), by=researcher, **form.settings())
    assert study.task_kind == TaskKind.RELATEDNESS and "totally unrelated" in study.guidelines
    assert study.samples.count() == 4
    assert sorted(study.check_questions.values_list("expected", flat=True)) == [0, 4]


def test_the_study_form_refuses_a_split_of_another_kind():
    from studies.forms import StudyForm

    split = unrated_setups(1)[0].split
    form = StudyForm(
        {"title": "P", "slug": "p", "task_kind": TaskKind.RELATEDNESS, "split": split.pk,
         "endings": "all", "ratings_per_sample": 3, "samples_per_participant": 2,
         "attention_checks_per_batch": 1, "time_limit_minutes": 30, "completion_code": "C",
         "screenout_code": "S", "guidelines": "g"}
    )  # fmt: skip
    assert not form.is_valid() and "split" in form.errors


def test_every_kind_default_setting_is_optional_in_the_study_form_and_names_its_default():
    """The form's one table of kind defaults covers ``defaults.KIND_DEFAULTS`` (one item per
    word is the ``word_rule`` choice); each such field may be left empty, starts empty on a
    new study and its help text says what empty means."""
    from studies import defaults
    from studies.forms import StudyForm

    assert set(StudyForm.KIND_DEFAULT_HELP) | {"one_item_per_word"} == set(defaults.KIND_DEFAULTS)
    form = StudyForm()
    for name in StudyForm.KIND_DEFAULT_HELP:
        field = form.fields[name]
        assert not field.required and form.initial[name] is None
        assert "Empty: the task's default" in field.help_text
    assert "word_rule" in form.fields and not form.fields["word_rule"].required
