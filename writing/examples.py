"""Example sentences for the senses of the pool (issue 31): the paper showed writers both
senses with "two example sentences, generated with GPT-4o" (section 3.2). Keyword-only,
typed, atomic.

``examples_request`` queues one LLM job per sense of a pair (Celery task
``writing.generate_example``, run by ``jobs.example_generate``) with the versioned prompt
``defaults.EXAMPLE_PROMPTS``; ``examples_request_missing`` does it for every pair of the
pool with a sense that has no example; ``example_decide`` is the review step: accepted
(optionally edited), the text becomes the sense's ``example_sentence`` (the old one kept as a
text version), rejected, nothing changes.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from annotations.models import Sample, Sense, TextVersion
from annotations.text_versions import TextEditError, reference_set

from . import defaults, rules
from .models import SenseExample, SensePair
from .review import endpoint_check, queued
from .services import WritingError


def examples_request(
    *,
    pair: SensePair,
    endpoint: str,
    model: str,
    by=None,
    prompt_version: str = defaults.DEFAULT_EXAMPLE_PROMPT,
) -> list[SenseExample]:
    """Queue an example sentence for each of the pair's two senses. A sense that already
    has one queued with the same prompt, endpoint and model gets no second job (a double
    click queues once)."""
    from .tasks import generate_example

    endpoint_check(endpoint, model)
    if prompt_version not in defaults.EXAMPLE_PROMPTS:
        raise WritingError(f"Unknown prompt {prompt_version!r}.")
    rows = []
    with transaction.atomic():
        pair = SensePair.objects.select_for_update().get(pk=pair.pk)
        for sense_id in (pair.sense_a_id, pair.sense_b_id):
            same = dict(sense_id=sense_id, pair=pair, prompt_version=prompt_version)
            waiting = SenseExample.objects.filter(
                **same, endpoint=endpoint, model=model, status=SenseExample.Status.QUEUED
            ).first()
            rows.append(
                waiting
                or queued(
                    SenseExample,
                    generate_example,
                    **same,
                    endpoint=endpoint,
                    model=model,
                    created_by=by,
                )  # fmt: skip
            )
    return rows


def examples_request_missing(*, endpoint: str, model: str, by=None) -> int:
    """Queue examples for every pair in the pool (not flagged out) with a sense that has no
    example sentence; returns the number of pairs."""
    endpoint_check(endpoint, model)
    missing = SensePair.objects.filter(excluded=False).filter(
        Q(sense_a__example_sentence="") | Q(sense_b__example_sentence="")
    )
    pairs = list(missing.order_by("id"))
    for pair in pairs:
        examples_request(pair=pair, endpoint=endpoint, model=model, by=by)
    return len(pairs)


@transaction.atomic
def example_decide(
    *, example: SenseExample, accept: bool, edited_text: str = "", by=None
) -> SenseExample:
    """Accept a suggested example (``edited_text``: the researcher's version of it), which
    becomes the sense's ``example_sentence``, or reject it. The text must hold the word
    exactly once, as a writer's sentence must (``rules.sentence_problem``). A sense already
    in a rated dataset keeps its example here: changing it would change what its ratings
    were given on (the study's text corrections and reference edits do that, with the
    labels in view)."""
    example = SenseExample.objects.select_for_update().get(pk=example.pk)
    if example.status != SenseExample.Status.SUGGESTED:
        raise WritingError("This example is not waiting for a decision.")
    if accept:
        text = edited_text.strip() or example.text
        sense = Sense.objects.select_for_update().select_related("homonym").get(pk=example.sense_id)
        _example_set(sense, text, by)
        example.accepted_text = text
    example.status = SenseExample.Status.ACCEPTED if accept else SenseExample.Status.REJECTED
    example.decided_by, example.decided_at = by, timezone.now()
    example.save(update_fields=["status", "accepted_text", "decided_by", "decided_at"])
    return example


def _example_set(sense: Sense, text: str, by) -> None:
    problem = rules.sentence_problem(text, sense.homonym.form)
    if problem:
        raise WritingError(f"The example was not taken: {problem}")
    rated = Sample.objects.filter(sense=sense).select_related("split__dataset").first()
    if rated is not None:
        raise WritingError(
            f"This sense is rated in {rated.split}: change its example there (the study's "
            "text corrections or a reference edit), not here."
        )
    try:
        reference_set(sense, TextVersion.Kind.SENSE, {"example_sentence": text}, by)
    except TextEditError as exc:
        raise WritingError(str(exc)) from None
