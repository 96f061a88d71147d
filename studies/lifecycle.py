"""The researcher's study lifecycle: create, change, open, pause and close a study, and
exclude or include a rater's ratings (a participant's slots follow). ``studies.services``
re-exports these names; the study page's confirmed change is ``studies.exclusions``."""

from __future__ import annotations

from django.db import transaction
from django.db.models import QuerySet

from annotations.data_versions import data_changed
from annotations.models import (
    Rater,
    RaterExclusion,
    Sample,
    TaskKind,
)
from annotations.services import rater_exclude, rater_include
from annotations.signals import bulk_change_announce

from . import defaults, lists
from .assignment import (
    batch_problem,
    slots_create,
    slots_restore,
    slots_void,
)
from .errors import StudyError
from .models import CheckQuestion, Participant, Study, StudySample


def _sample_ids(study: Study, samples: QuerySet[Sample] | list) -> list[int]:
    """The ids of ``samples``, refused unless every one has the study's task kind."""
    if isinstance(samples, QuerySet):
        ids = list(samples.values_list("id", flat=True))
    else:
        ids = [s if isinstance(s, int) else s.id for s in samples]
    other = Sample.objects.filter(id__in=ids).kinds() - {study.task_kind}
    if other:
        raise StudyError(
            f"A {study.get_task_kind_display().lower()} study takes only samples of that kind "
            f"(these include: {', '.join(sorted(other))})."
        )
    return ids


def _samples_write(study: Study, ids: list[int]) -> None:
    """Give the study these samples too: the study scope's samples change (its data
    version, ``annotations.data_versions``)."""
    StudySample.objects.bulk_create(
        [StudySample(study=study, sample_id=s) for s in ids], batch_size=1000
    )
    data_changed(kind=study.task_kind)


def _set_samples(study: Study, samples: QuerySet[Sample] | list[Sample]) -> None:
    StudySample.objects.filter(study=study).delete()
    _samples_write(study, _sample_ids(study, samples))


@transaction.atomic
def study_samples_add(*, study: Study, samples: QuerySet[Sample] | list) -> int:
    """Add ``samples`` to a study that is not closed (those it has already are left as
    they are); once the study has been opened, their slots are created at once, a new
    batch of slots on the assignment machinery (a use-pair study's next round,
    ``wug.crowd``). Returns how many samples were new."""
    study = Study.objects.select_for_update().get(pk=study.pk)
    if study.status == Study.Status.CLOSED:
        raise StudyError("A closed study takes no more samples.")
    if lists.uses_lists(study):  # fixed lists: made again from the samples, never grown
        if study.status != Study.Status.DRAFT:
            raise StudyError("A study assigned by lists takes no samples once it is opened.")
        lists.lists_drop(study=study)
    have = set(StudySample.objects.filter(study=study).values_list("sample_id", flat=True))
    new = [i for i in dict.fromkeys(_sample_ids(study, samples)) if i not in have]
    _samples_write(study, new)
    if study.status != Study.Status.DRAFT:
        slots_create(study)
    return len(new)


@transaction.atomic
def study_create(
    *, title: str, slug: str, samples: QuerySet[Sample] | list, by=None, **fields
) -> Study:
    """A draft study with the paper's guidelines, qualification questions and fresh codes
    unless ``fields`` says otherwise."""
    kind = defaults.for_kind(fields.get("task_kind", TaskKind.PLAUSIBILITY))
    fields.setdefault("guidelines", kind.guidelines)
    fields.setdefault("completion_code", defaults.new_code())
    fields.setdefault("screenout_code", defaults.new_code())
    for name in defaults.KIND_DEFAULTS:
        fields.setdefault(name, getattr(kind, name))
    questions = fields.pop("questions", None) or kind.checks
    design = _pop_design(fields)
    study = Study.objects.create(title=title, slug=slug, created_by=by, **fields)
    CheckQuestion.objects.bulk_create(
        CheckQuestion(study=study, order=i, **q) for i, q in enumerate(questions)
    )
    _set_samples(study, samples)
    if design is not None:
        lists.design_set(study=study, **design)
    return study


def _pop_design(fields: dict) -> dict | None:
    """``assignment`` ("samples" or "lists") and ``latin_square`` out of ``fields``: the
    list design's settings (``studies.lists.design_set``), None when not given."""
    assignment = fields.pop("assignment", None)
    latin_square = fields.pop("latin_square", True)
    if assignment is None:
        return None
    return {"lists": assignment == "lists", "latin_square": bool(latin_square)}


@transaction.atomic
def study_update(*, study: Study, samples=None, **fields) -> Study:
    """Change settings; the sample set can only change while the study is a draft. A study
    that is open or paused keeps to the rules opening checks (``batch_problem``), and more
    ratings per sample open their places at once."""
    study = Study.objects.select_for_update().get(pk=study.pk)
    started = study.status != Study.Status.DRAFT
    design = _pop_design(fields)
    if started and fields.get("task_kind", study.task_kind) != study.task_kind:
        raise StudyError("The task kind can only be changed while the study is a draft.")
    per_word = fields.get("one_item_per_word", study.one_item_per_word)
    if started and per_word != study.one_item_per_word:
        raise StudyError("One item per word can only be changed while the study is a draft.")
    if fields.get("task_kind", study.task_kind) != study.task_kind:  # a draft's new kind
        for name in ("one_item_per_word", "attention_min_correct", "bot_checks"):
            fields.setdefault(name, getattr(defaults.for_kind(fields["task_kind"]), name))
    study.task_kind = fields.pop("task_kind", study.task_kind)
    if samples is not None:
        if started:
            raise StudyError("Samples can only be changed while the study is a draft.")
        _set_samples(study, samples)
        lists.lists_drop(study=study)  # lists of the old samples: made again on opening
    ratings = fields.get("ratings_per_sample", study.ratings_per_sample)
    if started and ratings < study.ratings_per_sample:
        raise StudyError("Ratings per sample cannot go down once the study has been opened.")
    length = fields.get("samples_per_participant", study.samples_per_participant)
    if started and lists.uses_lists(study) and length != study.samples_per_participant:
        raise StudyError(  # its lists were made on opening, of the old length
            "The list length (samples per participant) can only be changed while the study "
            "is a draft."
        )
    more = ratings > study.ratings_per_sample
    unit = fields.get("one_item_per_word", study.one_item_per_word)  # a new kind's default too
    remake = length != study.samples_per_participant or unit != study.one_item_per_word
    for name, value in fields.items():
        setattr(study, name, value)
    study.save()
    if remake and not started:
        lists.made_lists_drop(study=study)  # made of the old length: made again on opening
    if design is not None:
        lists.design_set(study=study, **design)
    if study.status in (Study.Status.OPEN, Study.Status.PAUSED):
        problem = batch_problem(study)  # the rule opening checks holds while it runs
        if problem:
            raise StudyError(problem)
        if more:  # their places open now (other settings change no slot)
            slots_create(study)
    return study


@transaction.atomic
def study_open(*, study: Study) -> Study:
    """Open (or reopen) the study, creating its slots; refused with the reason when no batch
    can be formed under the assignment rules. Announced as a bulk change
    (``annotations.signals``): the dashboards precompute their default pages."""
    study = Study.objects.select_for_update().get(pk=study.pk)
    if study.status == Study.Status.CLOSED:
        raise StudyError("A closed study cannot be opened again.")
    problem = batch_problem(study)
    if problem:
        raise StudyError(problem)
    slots_create(study)
    study.status = Study.Status.OPEN
    study.save(update_fields=["status"])
    bulk_change_announce(kind=study.task_kind)  # its researcher is about to look at the data
    return study


def _set_status(study: Study, status: str, allowed: tuple[str, ...]) -> Study:
    study = Study.objects.select_for_update().get(pk=study.pk)
    if study.status not in allowed:
        raise StudyError(f"A {study.get_status_display().lower()} study cannot be {status}.")
    study.status = status
    study.save(update_fields=["status"])
    return study


@transaction.atomic
def study_pause(*, study: Study) -> Study:
    """Stop new arrivals; participants already rating can finish."""
    return _set_status(study, Study.Status.PAUSED, (Study.Status.OPEN,))


@transaction.atomic
def study_close(*, study: Study) -> Study:
    """End the study for good: no new arrivals and it cannot be opened again. Participants
    who already started can finish their batch within their hold and get the completion
    code (nobody who started is left without one)."""
    return _set_status(
        study, Study.Status.CLOSED, (Study.Status.DRAFT, Study.Status.OPEN, Study.Status.PAUSED)
    )


@transaction.atomic
def participant_exclude(*, rater: Rater, source: str, reason: str, by=None) -> RaterExclusion:
    """Take any rater out of the aggregates (``annotations.services.rater_exclude``) and,
    where the rater is a study participant, void their slots so that each of their samples
    gets a replacement rating. Every exclusion that may hit a participant goes through
    here (study page, annotator-quality dashboard, failed attention check)."""
    exclusion = rater_exclude(rater=rater, source=source, reason=reason, by=by)
    for participant in Participant.objects.filter(rater=rater):
        slots_void(participant)
    return exclusion


@transaction.atomic
def participant_include(*, rater: Rater, by=None, reason: str = "") -> int:
    """Undo :func:`participant_exclude`: the ratings count again and the participant's
    rated slots are restored (unclaimed replacements withdrawn). Returns how many samples
    went above the wanted number of ratings because a replacement was already taken."""
    rater_include(rater=rater, by=by, reason=reason)
    return sum(slots_restore(p) for p in Participant.objects.filter(rater=rater))
