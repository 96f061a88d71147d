"""The writing data as one JSON document, streamed: every pool pair's sentences with their
review, precontext versions (prompt, endpoint, model) and endings. Writers appear by their
rater pseudonym, never by Prolific ID."""

from __future__ import annotations

import json
from collections.abc import Iterator

from annotations.models import Sense

from .models import Ending, Precontext, SensePair, SenseSwap, Sentence


def _review(item) -> dict:
    return {
        "text": item.text,
        "final_text": item.final_text,
        "decision": item.decision,
        "reason": item.reason,
        "reviewed_by": item.reviewed_by.get_username() if item.reviewed_by else None,
        "reviewed_at": item.reviewed_at.isoformat() if item.reviewed_at else None,
        "created_at": item.created_at.isoformat(),
        "late": item.late,  # sent after the study's time limit (studies.late)
    }


def _swap(w: SenseSwap) -> dict:
    return {
        "reason": w.reason,
        "by": w.by.get_username() if w.by else None,
        "at": w.at.isoformat(),
    }


def _gloss(sense: Sense | None) -> str | None:
    return sense.gloss if sense else None


def _meanings(pair: SensePair | None) -> list[str]:
    return [pair.sense_a.gloss, pair.sense_b.gloss] if pair else []


def _precontext(p: Precontext) -> dict:
    return {
        "id": p.pk,
        "source": p.source,
        "status": p.status,
        "text": p.text,
        "prompt_version": p.prompt_version,
        "endpoint": p.endpoint,
        "model": p.model,
        "served_model": p.served_model,
        "based_on": p.based_on_id,
    }


def _ending(e: Ending) -> dict:
    return {
        "id": e.pk,
        "writer": e.participant.rater.pseudonym,
        "study": e.participant.study.slug,
        "intended_meaning": e.sense.gloss,  # a reviewer may have swapped it (sense_swaps)
        "shown_meaning": e.slot.sense.gloss,  # what the writer was shown
        "comment": e.comment,
        "story_id": e.story_id,
        "sense_swaps": [
            {"before": _gloss(w.sense_before), "after": _gloss(w.sense_after), **_swap(w)}
            for w in e.sense_swaps.all()
        ],
        **_review(e),
        # the writer's changes after going Back (Figure 3): what each one replaced
        "writer_edits": [
            {
                "text_before": x.text_before,
                "comment_before": x.comment_before,
                "late": x.late,
                "at": x.at.isoformat(),
            }
            for x in e.edits.all()
        ],
    }


def iter_writing_json() -> Iterator[str]:
    sentences = Sentence.objects.select_related(
        "pair__homonym",
        "pair__sense_a",
        "pair__sense_b",
        "draw__pair__sense_a",
        "draw__pair__sense_b",
        "participant__rater",
        "participant__study",
        "reviewed_by",
    ).prefetch_related(
        "precontexts",
        "sense_swaps__pair_before__sense_a",
        "sense_swaps__pair_before__sense_b",
        "sense_swaps__pair_after__sense_a",
        "sense_swaps__pair_after__sense_b",
        "sense_swaps__by",
    )
    yield '{"sentences": ['
    for n, s in enumerate(sentences.iterator(chunk_size=500)):
        written = getattr(s, "written", None)
        endings = (
            Ending.objects.filter(slot__written__sentence=s)
            .select_related(
                "participant__rater", "participant__study", "slot__sense", "sense", "reviewed_by"
            )
            .prefetch_related(
                "edits", "sense_swaps__sense_before", "sense_swaps__sense_after", "sense_swaps__by"
            )
        )
        record = {
            "id": s.pk,
            "homonym": s.pair.homonym.form,
            "meaning_1": s.pair.sense_a.gloss,
            "meaning_2": s.pair.sense_b.gloss,
            "shown_meanings": _meanings(s.draw.pair),  # what the writer was shown
            "sense_swaps": [
                {
                    "before": _meanings(w.pair_before),
                    "after": _meanings(w.pair_after),
                    **_swap(w),
                }
                for w in s.sense_swaps.all()
            ],
            "writer": s.participant.rater.pseudonym,
            "study": s.participant.study.slug,
            **_review(s),
            "precontexts": [_precontext(p) for p in s.precontexts.all()],
            "setup_id": written.setup_id if written else None,
            "accepted_precontext": written.precontext_id if written else None,
            "endings": [_ending(e) for e in endings],
        }
        yield ("" if n == 0 else ", ") + json.dumps(record)
    yield "]}\n"
