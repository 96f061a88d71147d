"""Writers' pages under ``/s/<slug>/`` (Figures 2 and 3): the studies app does the arrival,
consent, holds, qualification and the code pages, and sends a qualified writer here.

A writer is found by the study's resume token, as on the rating pages. Every submission is
stored before the answer is sent (a refused text as the draft shown again), so a reload
never loses what was typed and sent."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from ambisite.query import bounded_int
from studies import late
from studies import selectors as study_selectors
from studies import services as study_services
from studies.models import Participant, Study
from studies.views import RESUME_COOKIE

from . import defaults, selectors, services


class _SeeOther(HttpResponseRedirect):
    status_code = 303


def _writer(request: HttpRequest, slug: str, activity: str):
    """(participant, None) for a qualified writer of this activity still in time (or, for a
    text sent, one whose time ran out: the service saves it marked late or says why not),
    else (None, a redirect to the study link, which sends everyone where they belong)."""
    token = request.COOKIES.get(RESUME_COOKIE.format(slug))
    participant = None
    if token:
        participant = study_selectors.participant_by_token(slug, study_services.resume_hash(token))
    arrive = redirect("participate:arrive", slug)
    if participant is None or participant.study.activity != activity:
        return None, arrive
    sending = request.method == "POST" and participant.qualified_at is not None
    if sending and participant.status == Participant.Status.TIMED_OUT:
        return participant, None
    if participant.status != Participant.Status.QUALIFIED:
        return None, arrive
    if participant.is_late() and not sending:  # the study link shows the time-up page
        return None, arrive
    return participant, None


def _too_late(request: HttpRequest, participant: Participant, reason: str) -> HttpResponse:
    """The time-up page for a text sent after the time limit that was not saved: why, and
    the code for what was saved before."""
    ctx = {**late.time_up_context(participant.study, participant), "refused": reason}
    return render(request, "studies/timed_out.html", ctx)


def _away(slug: str) -> HttpResponse:
    return _SeeOther(reverse("participate:arrive", args=[slug]))


def _send(
    request: HttpRequest,
    participant: Participant,
    call: Callable[..., object],
    /,
    then: str = "",
    **kwargs: Any,
) -> tuple[HttpResponse | None, str]:
    """Run one writing service for a text sent: (the answer, "") when it is stored or cannot
    be (stored: a redirect to ``then``, by default the same page), (None, why) when the text
    is refused and the page is shown again with the reason."""
    try:
        call(**kwargs)
    except services.Refused as exc:
        return None, exc.reason
    except services.TooLate as exc:
        return _too_late(request, participant, exc.reason), ""
    except services.WritingError:
        return _away(participant.study.slug), ""
    return _SeeOther(then or request.path), ""


@require_http_methods(["GET", "POST"])
def sentences(request: HttpRequest, slug: str) -> HttpResponse:
    """Figure 2: a word and its two meanings; write one sentence where both are plausible,
    or ask for a different word."""
    participant, other = _writer(request, slug, Study.Activity.SENTENCES)
    if other:
        return other
    error = ""
    if request.method == "POST":
        draw_id = bounded_int(request.POST.get("draw"), 0)
        if request.POST.get("action") == "skip":
            answer, error = _send(
                request, participant, services.draw_skip, participant=participant, draw_id=draw_id
            )
        else:
            answer, error = _send(
                request,
                participant,
                services.sentence_submit,
                participant=participant,
                draw_id=draw_id,
                text=request.POST.get("text", ""),
            )
        if answer:
            return answer
    try:
        draw = services.draw_current(participant=participant)
    except services.WritingError as exc:
        return _problem(request, participant.study, exc.reason)
    ctx = {
        "study": participant.study,
        "draw": draw,
        "pair": draw.pair,
        "done": selectors.sentences_written(participant),
        "total": participant.study.samples_per_participant,
        "ui": defaults.SENTENCE_UI,
        "error": error,
        "seconds_left": late.seconds_left(participant),
    }
    return render(request, "writing/write_sentence.html", ctx, status=400 if error else 200)


@require_http_methods(["GET", "POST"])
def endings(request: HttpRequest, slug: str, position: int | None = None) -> HttpResponse:
    """Figure 3: the first four sentences and the intended meaning; write one ending that
    makes it more plausible, without the word. Back (top of the page, as in the figure)
    goes to the writer's previous ending (``position``), whose text Next saves as a change;
    without a position: the first story not written yet."""
    participant, other = _writer(request, slug, Study.Activity.ENDINGS)
    if other:
        return other
    error, sent = "", None
    if request.method == "POST":
        slot_id = bounded_int(request.POST.get("slot"), 0)
        text, comment = request.POST.get("text", ""), request.POST.get("comment", "")
        if request.POST.get("action") == "back":
            return _back(participant, slot_id, text, comment)
        then = _ending_url(slug, position + 1) if position is not None else request.path
        answer, error = _send(
            request,
            participant,
            services.ending_submit,
            then=then,
            participant=participant,
            slot_id=slot_id,
            text=text,
            comment=comment,
        )
        if answer:
            return answer
        sent = (text, comment)
    try:
        slots = services.ending_slots_hold(participant=participant)
    except services.WritingError as exc:
        return _problem(request, participant.study, exc.reason)
    rows = selectors.ending_rows(participant, slots)
    current = next((row for row in rows if not row.written), None)
    if position is not None:  # Back: only an ending already written, else the current one
        current = next((r for r in rows if r.slot.position == position and r.written), None)
        if current is None:
            return _SeeOther(reverse("write:endings", args=[slug]))
    elif current is None:
        return _away(slug)
    ctx = {
        "study": participant.study,
        "row": current,
        "text": sent[0] if sent else (current.ending.text if current.ending else None),
        "comment": sent[1] if sent else (current.ending.comment if current.ending else None),
        "can_go_back": bool(current.slot.position),
        "done": sum(1 for row in rows if row.written),
        "total": len(rows),
        "ui": defaults.ENDING_UI,
        "error": error,
        "seconds_left": late.seconds_left(participant),
    }
    return render(request, "writing/write_ending.html", ctx, status=400 if error else 200)


def _ending_url(slug: str, position: int) -> str:
    return reverse("write:ending_at", args=[slug, position])


def _back(participant: Participant, slot_id: int, text: str, comment: str) -> HttpResponse:
    """Back: keep what is typed for a story not written yet, show the previous ending."""
    slug = participant.study.slug
    try:
        before = services.ending_back(
            participant=participant, slot_id=slot_id, text=text, comment=comment
        )
    except services.WritingError:
        return _away(slug)
    return _SeeOther(_ending_url(slug, before))


def _problem(request, study, text: str) -> HttpResponse:
    ctx = {"study": study, "title": "Nothing to write right now", "text": text}
    return render(request, "studies/problem.html", ctx)
