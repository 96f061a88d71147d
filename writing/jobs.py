"""The LLM jobs the Celery tasks run: a precontext (B.2 prompt), a spelling clean-up (B.1
prompts) and a sense's example sentence (the site's prompt: the paper gives none). Each
loads its queued row, asks the endpoint with no transaction open, and stores the text or the
error."""

from __future__ import annotations

from django.utils import timezone

from . import defaults, llm
from .models import Cleanup, Precontext, SenseExample


def precontext_generate(*, precontext_id: int) -> Precontext:
    """Run one queued generation: render the prompt, ask the endpoint, store the text (or
    the error). No transaction is held while the model answers."""
    row = Precontext.objects.select_related(
        "sentence__pair__sense_a", "sentence__pair__sense_b", "sentence__pair__homonym"
    ).get(pk=precontext_id)
    if row.status != Precontext.Status.QUEUED:
        return row
    sentence = row.sentence
    pair = sentence.pair
    prompt = defaults.PRECONTEXT_PROMPTS[row.prompt_version].format(
        sentence=sentence.final_text,
        homonym=pair.homonym.form,
        sense_1=pair.sense_a.gloss,
        sense_2=pair.sense_b.gloss,
    )
    _answer(row, prompt, answered=Precontext.Status.DONE, failed=Precontext.Status.FAILED)
    return row


def cleanup_generate(*, cleanup_id: int) -> Cleanup:
    row = Cleanup.objects.select_related("ending__slot__written__setup").get(pk=cleanup_id)
    if row.status != Cleanup.Status.QUEUED:
        return row
    template = defaults.CLEANUP_PROMPTS[row.prompt_version]
    if row.ending_id:
        prompt = template.format(
            sentence=row.ending.slot.written.setup.sentence,  # type: ignore[union-attr]
            ending=row.original,
        )
    else:
        prompt = template.format(sentence=row.original)
    try:
        text, _ = llm.complete(row.endpoint, row.model, prompt)
    except llm.LLMError as exc:
        row.status, row.error = Cleanup.Status.FAILED, str(exc)[:2000]
    else:
        row.status, row.suggested = Cleanup.Status.SUGGESTED, text.strip()
    row.save(update_fields=["status", "suggested", "error"])
    return row


def example_generate(*, example_id: int) -> SenseExample:
    """Run one queued example sentence: the prompt names the word, the sense and the pair's
    other sense; the answer (or the error) is stored for a researcher to decide."""
    row = SenseExample.objects.select_related(
        "sense", "pair__homonym", "pair__sense_a", "pair__sense_b"
    ).get(pk=example_id)
    if row.status != SenseExample.Status.QUEUED:
        return row
    pair = row.pair
    other = pair.sense_b if row.sense_id == pair.sense_a_id else pair.sense_a
    prompt = defaults.EXAMPLE_PROMPTS[row.prompt_version].format(
        homonym=pair.homonym.form, gloss=row.sense.gloss, other_gloss=other.gloss
    )
    _answer(row, prompt, answered=SenseExample.Status.SUGGESTED, failed=SenseExample.Status.FAILED)
    return row


def _answer(row: Precontext | SenseExample, prompt: str, *, answered: str, failed: str) -> None:
    """Ask the row's endpoint and store the text with status ``answered`` (or the error with
    ``failed``), the model that served it and the time: how a generation job ends."""
    try:
        text, served = llm.complete(row.endpoint, row.model, prompt)
    except llm.LLMError as exc:
        row.status, row.error = failed, str(exc)[:2000]
    else:
        row.status, row.text, row.served_model = answered, text.strip(), served
    row.finished_at = timezone.now()
    row.save(update_fields=["status", "text", "error", "served_model", "finished_at"])
