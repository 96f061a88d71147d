"""Researchers' writes after the writers': review, precontexts, clean-ups, setups,
stories and the rating study. Keyword-only, typed, atomic.

``sentence_review``, ``ending_review`` (accept with an optional edit, or reject with a
reason; logged, never deleting text), ``precontext_request`` (queues the B.2 job, run by
``jobs``), ``precontext_write``, ``setup_make``, ``cleanup_request`` (queues a B.1 job),
``cleanup_decide``, ``ready_setups`` and ``rating_study_create``.
"""

from __future__ import annotations

from typing import TypeVar

from django.db import IntegrityError, transaction
from django.db.models import Count, Q
from django.utils import timezone

from ambisite.db.row_locks import locked_in_id_order
from annotations.importers import positions_after, stories_locked
from annotations.models import Dataset, Sample, Setup, Split, Story
from studies import services as study_services
from studies.models import Study

from . import defaults, llm, rules
from .models import (
    Cleanup,
    Ending,
    LLMRequest,
    Precontext,
    ReviewDecision,
    Reviewed,
    Sentence,
    WrittenSetup,
)
from .services import WritingError

Job = TypeVar("Job", bound=LLMRequest)


def endpoint_check(endpoint: str, model: str) -> None:
    """``WritingError`` naming the problem unless the operator allows ``model`` on
    ``endpoint`` (every LLM step of writing asks this first)."""
    try:
        llm.check_endpoint(endpoint, model)
    except llm.LLMError as exc:
        raise WritingError(str(exc)) from None


# --- review --------------------------------------------------------------------------------


def _stored_edit(item: Reviewed, edited_text: str) -> str:
    """The ``edited_text`` a review stores: the edit, stripped; empty when it is none or the
    writer's own text."""
    edited = edited_text.strip()
    return "" if edited == item.text else edited


def _repeated(item: Reviewed, decision: str, edited_text: str, reason: str) -> bool:
    """Whether this review is the item's current one again (a double click, a resubmitted
    form): the same decision, edit and reason as ``_decide`` stored. Such a review records
    nothing and changes nothing; any other is a new decision."""
    wanted = (decision, _stored_edit(item, edited_text), reason.strip())
    return wanted == (item.decision, item.edited_text, item.reason)


def _decide(
    item: Reviewed, decision: str, edited_text: str, reason: str, by, *, homonym: str
) -> None:
    """Record a review: the item's decision, reason and edit (an accepted edit must pass the
    writers' rule for its kind of text, with ``homonym``), and its line in the log."""
    if decision not in Reviewed.Decision.values:
        raise WritingError("Unknown decision.")
    if decision == Reviewed.Decision.ACCEPTED and edited_text.strip():
        rule = rules.sentence_problem if isinstance(item, Sentence) else rules.ending_problem
        problem = rule(edited_text, homonym)
        if problem:
            raise WritingError(problem)
    if decision == Reviewed.Decision.REJECTED and not reason.strip():
        raise WritingError("Please give a reason for rejecting.")
    before = item.final_text
    item.edited_text = _stored_edit(item, edited_text)
    item.decision, item.reason = decision, reason.strip()
    item.reviewed_by, item.reviewed_at = by, timezone.now()
    item.save()
    link = {"sentence": item} if isinstance(item, Sentence) else {"ending": item}
    ReviewDecision.objects.create(
        decision=decision,
        text_before=before,
        text_after=item.final_text,
        reason=item.reason,
        by=by,
        **link,
    )


@transaction.atomic
def sentence_review(
    *, sentence: Sentence, decision: str, edited_text: str = "", reason: str = "", by=None
) -> Sentence:
    """Accept (optionally with an edit) or reject (with a reason) a sentence. An edit must
    keep the word exactly once. A sentence that already made a setup cannot change. The
    sentence's current review again (a double click) records nothing (``_repeated``)."""
    sentence = Sentence.objects.select_for_update().get(pk=sentence.pk)
    if _repeated(sentence, decision, edited_text, reason):
        return sentence
    if WrittenSetup.objects.filter(sentence=sentence).exists():
        raise WritingError("This sentence is already part of a setup.")
    _decide(sentence, decision, edited_text, reason, by, homonym=sentence.pair.homonym.form)
    return sentence


@transaction.atomic
def ending_review(
    *, ending: Ending, decision: str, edited_text: str = "", reason: str = "", by=None
) -> Ending:
    """Accept (optionally with an edit: the story gets the edited text) or reject (with a
    reason) an ending. Accepting makes the story ``setup + ending``. The ending's current
    review again (a double click) records nothing (``_repeated``)."""
    ending = (
        Ending.objects.select_for_update()
        .select_related("slot__written__setup__homonym")
        .get(pk=ending.pk)
    )
    if _repeated(ending, decision, edited_text, reason):
        return ending
    if ending.story_id:
        raise WritingError("This ending is already a story.")
    setup = ending.slot.written.setup
    _decide(ending, decision, edited_text, reason, by, homonym=setup.homonym.form)
    if decision == Reviewed.Decision.ACCEPTED:
        story, _ = Story.objects.get_or_create(setup=setup, ending=ending.final_text)
        if hasattr(story, "written_ending"):
            raise WritingError("Another ending with the same text is already this story.")
        ending.story = story
        ending.save(update_fields=["story"])
    return ending


# --- precontexts and clean-ups (the LLM jobs) ----------------------------------------------


def queued(job: type[Job], task, /, **fields) -> Job:
    """A new LLM request row, and its Celery ``task`` sent once the row is committed."""
    with transaction.atomic():
        row = job._default_manager.create(**fields)
        transaction.on_commit(lambda: task.delay(row.pk))
    return row


def precontext_request(
    *,
    sentence: Sentence,
    endpoint: str,
    model: str,
    by=None,
    prompt_version: str = defaults.DEFAULT_PRECONTEXT_PROMPT,
) -> Precontext:
    """Queue a precontext generation (B.2 prompt) for an accepted sentence; the Celery
    task ``writing.generate_precontext`` runs it after the commit."""
    from .tasks import generate_precontext

    endpoint_check(endpoint, model)
    if prompt_version not in defaults.PRECONTEXT_PROMPTS:
        raise WritingError(f"Unknown prompt {prompt_version!r}.")
    if sentence.decision != Reviewed.Decision.ACCEPTED:
        raise WritingError("Accept the sentence before generating its precontext.")
    return queued(
        Precontext,
        generate_precontext,
        sentence=sentence,
        prompt_version=prompt_version,
        endpoint=endpoint,
        model=model,
        created_by=by,
    )


def precontext_write(
    *, sentence: Sentence, text: str, by=None, based_on: Precontext | None = None
) -> Precontext:
    """A researcher's precontext (new or an edit of a generated one): a new version."""
    text = text.strip()
    if not text:
        raise WritingError("The precontext is empty.")
    return Precontext.objects.create(
        sentence=sentence,
        source=Precontext.Source.RESEARCHER,
        status=Precontext.Status.DONE,
        text=text,
        based_on=based_on,
        created_by=by,
        finished_at=timezone.now(),
        prompt_version=based_on.prompt_version if based_on else "",
    )


@transaction.atomic
def setup_make(*, precontext: Precontext, by=None) -> WrittenSetup:
    """Accept a precontext: the accepted sentence and it become an AmbiStory setup (with
    the open-ended story), recorded with its provenance."""
    sentence = (
        Sentence.objects.select_for_update()
        .select_related("pair__homonym")
        .get(pk=precontext.sentence_id)
    )
    if sentence.decision != Reviewed.Decision.ACCEPTED:
        raise WritingError("Only an accepted sentence becomes a setup.")
    if precontext.status != Precontext.Status.DONE or not precontext.text.strip():
        raise WritingError("This precontext has no text.")
    if WrittenSetup.objects.filter(sentence=sentence).exists():
        raise WritingError("This sentence is already a setup.")
    setup, _ = Setup.objects.get_or_create(
        homonym=sentence.pair.homonym, precontext=precontext.text, sentence=sentence.final_text
    )
    Story.objects.get_or_create(setup=setup, ending="")
    try:
        with transaction.atomic():
            return WrittenSetup.objects.create(
                setup=setup, sentence=sentence, precontext=precontext, created_by=by
            )
    except IntegrityError:
        raise WritingError("The same setup was already made from another sentence.") from None


def cleanup_request(
    *,
    endpoint: str,
    model: str,
    sentence: Sentence | None = None,
    ending: Ending | None = None,
    by=None,
) -> Cleanup:
    """Queue a B.1 spelling clean-up of a sentence or an ending."""
    from .tasks import generate_cleanup

    endpoint_check(endpoint, model)
    item = sentence or ending
    if item is None:
        raise WritingError("Nothing to clean up.")
    version = defaults.SENTENCE_CLEANUP_PROMPT if sentence else defaults.ENDING_CLEANUP_PROMPT
    return queued(
        Cleanup,
        generate_cleanup,
        sentence=sentence,
        ending=ending,
        original=item.final_text,
        prompt_version=version,
        endpoint=endpoint,
        model=model,
        created_by=by,
    )


@transaction.atomic
def cleanup_decide(*, cleanup: Cleanup, accept: bool, by=None) -> Cleanup:
    """Accept a suggested clean-up (it becomes the text's edit, logged; the writer's text
    stays) or reject it."""
    cleanup = Cleanup.objects.select_for_update().get(pk=cleanup.pk)
    if cleanup.status != Cleanup.Status.SUGGESTED:
        raise WritingError("This clean-up is not waiting for a decision.")
    if accept:
        item = cleanup.sentence or cleanup.ending
        if item is None:
            raise WritingError("This clean-up has no sentence or ending to change.")
        if item.final_text != cleanup.original:  # edited since the suggestion was made
            raise WritingError(
                "The text was edited after this clean-up was suggested, so accepting it would "
                "undo that edit: reject it and ask for a new clean-up of the current text."
            )
        review = sentence_review if cleanup.sentence_id else ending_review
        key = "sentence" if cleanup.sentence_id else "ending"
        review(
            **{key: item},  # type: ignore[arg-type]  # the review that matches ``key``
            decision=item.decision,
            edited_text=cleanup.suggested,
            reason=item.reason or "",
            by=by,
        )
    cleanup.status = Cleanup.Status.ACCEPTED if accept else Cleanup.Status.REJECTED
    cleanup.decided_at = timezone.now()
    cleanup.save(update_fields=["status", "decided_at"])
    return cleanup


# --- into a rating study -------------------------------------------------------------------


def ready_setups():
    """Written setups whose two senses each have an accepted ending (ready to be rated)."""
    accepted = Ending.objects.filter(decision=Reviewed.Decision.ACCEPTED, story__isnull=False)
    return WrittenSetup.objects.annotate(
        n_endings=Count(
            "slots__endings__sense",
            filter=Q(slots__endings__in=accepted),
            distinct=True,
        )
    ).filter(n_endings__gte=2)


def _written_locked(written: list[WrittenSetup]) -> None:
    """Lock the rows of ``written`` until the commit, in id order (whatever order they were
    chosen in) so that two callers with overlapping setups never hold one each and wait on
    the other's; a row pointing at a setup (an ending study's slot) is not held up."""
    locked_in_id_order(WrittenSetup, [item.pk for item in written])


@transaction.atomic
def rating_study_create(
    *,
    written: list[WrittenSetup],
    title: str,
    slug: str,
    dataset: str,
    split: str,
    by=None,
    **fields,
) -> Study:
    """One step from written stories to a plausibility rating study: for every setup its
    stories (open-ended and one accepted ending per sense) times its two senses become
    samples of the new split ``dataset/split``, and a draft rating study over them.

    Two creations at once run one after the other wherever they overlap, and the second is
    then refused with a ``WritingError`` (never a unique constraint's IntegrityError):
    the split is locked and numbered as the importers do (``positions_after``) before it is
    checked for samples, so a second creation into the same split finds the first's samples
    instead of also finding it empty; the chosen setups are locked (``_written_locked``)
    before their stories are looked up as samples, so a second creation of a shared setup
    into another split finds the first's samples of it instead of writing its own.

    The stories are locked too (``importers.stories_locked``) before they are looked up
    as samples, so an AmbiStory import of one of them at once, into any split, runs before
    or after this creation, and the second is refused naming the first's split.

    The locks are taken in one order, which every caller follows: the dataset's and the
    split's rows (their unique keys, when new), then the split's row lock, then the setups
    in id order, then the stories in id order. The importers take the same locks less the
    setups' (splits, then stories, each in id order); nothing else takes an update lock on
    a written setup; so no two callers wait on each other."""
    if not written:
        raise WritingError("Choose at least one setup.")
    ds, _ = Dataset.objects.get_or_create(
        name=dataset, defaults={"title": f"{dataset} (written on AmbiSite)"}
    )
    sp, _ = Split.objects.get_or_create(dataset=ds, name=split)
    numbers = positions_after([sp.pk])[sp.pk]  # first: the lock (see there)
    if sp.samples.exists():
        raise WritingError(f"The split {sp} already has samples; choose a new split name.")
    _written_locked(written)  # after the split's lock (the order above), before ``taken``
    rows = []
    for item in written:
        pair = item.sentence.pair
        stories = [Story.objects.get_or_create(setup=item.setup, ending="")[0]]
        for sense in (pair.sense_a, pair.sense_b):
            ending = (
                Ending.objects.filter(
                    slot__written=item,
                    sense=sense,  # the ending's sense (a reviewer may have swapped it)
                    decision=Reviewed.Decision.ACCEPTED,
                    story__isnull=False,
                )
                .order_by("id")
                .first()
            )
            if ending is None:
                raise WritingError(f'"{item.setup}" has no accepted ending for "{sense.gloss}".')
            stories.append(ending.story)  # type: ignore[arg-type]  # an accepted ending has one
        rows += [(story, sense) for story in stories for sense in (pair.sense_a, pair.sense_b)]
    stories_locked(story.pk for story, _ in rows)  # last: after the setups (the order above)
    taken = (
        Sample.objects.filter(story__in=[story for story, _ in rows])
        .select_related("split__dataset")
        .first()
    )
    if taken is not None:  # a story is judged for a sense in one split only
        raise WritingError(
            f"These stories are already samples of {taken.split}: choose setups that are "
            "not rated yet, or use that split's study."
        )
    samples = Sample.objects.bulk_create(
        Sample(split=sp, story=story, sense=sense, dataset_id=str(n), sample_id=str(n), position=n)
        for n, (story, sense) in zip(numbers, rows)
    )
    fields.setdefault("samples_per_participant", min(30, len(written)))
    fields["samples_per_participant"] = min(fields["samples_per_participant"], len(written))
    return study_services.study_create(
        title=title, slug=slug, samples=[s.pk for s in samples], by=by, **fields
    )
