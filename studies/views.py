"""Participant pages under ``/s/<slug>/``.

A GET of the arrival link reserves nothing and stores nothing: it checks the link and shows
the consent page. The consent POST (``consent_views``, with the qualification test) creates
the participant, reserves their batch and gives the browser a resume token (an HttpOnly
cookie; only its SHA-256 is stored). Every later page
finds the participant by that token alone, so a Prolific PID is never a credential: the same
PID in a browser without the token gets a page saying so and sees no earlier answer. The
participant pages do not use Django's session at all (no session row read or written per
request). No page here shows aggregates, other raters' answers or model scores. Researcher
pages are in ``researcher_views``."""

from __future__ import annotations

import functools
import secrets
from typing import TypeGuard

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import get_script_prefix, get_urlconf, reverse

from ambisite import ratelimit

from . import holds, late, selectors, services, study_texts
from .models import Participant, Study

RESUME_COOKIE = "resume_{}"
SHOWN_COOKIE = "shown_{}"
# The address of a page sent in answer to a POST (not the POST's own): participant.js and the
# load generator take it from this header, a browser from the page's canonical link.
PAGE_URL_HEADER = "X-Page-Url"


def _url(name: str, *args) -> str:
    """``reverse(name, args=args)``, remembered per process: the rating page and its save
    ask for the same few addresses (the item, the one before it) on every request."""
    return _reversed(get_script_prefix(), get_urlconf() or settings.ROOT_URLCONF, name, args)


@functools.lru_cache(maxsize=8192)
def _reversed(prefix: str, urlconf: str, name: str, args: tuple) -> str:
    return reverse(name, args=list(args), urlconf=urlconf)


def _study(slug: str) -> Study:
    return get_object_or_404(Study.objects.exclude(status=Study.Status.DRAFT), slug=slug)


def _token_hash(request: HttpRequest, slug: str) -> str | None:
    """The hash of this browser's resume token for study ``slug`` (None without one)."""
    token = request.COOKIES.get(RESUME_COOKIE.format(slug))
    return services.resume_hash(token) if token else None


def _participant(request: HttpRequest, slug: str) -> tuple[Study, Participant | None]:
    """The study and this browser's participant in it: one query, with a resume token
    (whether or not a participant has it yet: the consent's case) or without."""
    found = selectors.study_and_participant(slug, _token_hash(request, slug))
    if found is None:
        raise Http404("No such study.")
    return found


def _problem(request, study, title: str, text: str, status: int = 200) -> HttpResponse:
    ctx = {"study": study, "title": title, "text": text}
    return render(request, "studies/problem.html", ctx, status=status)


def _too_many(request, study) -> HttpResponse:
    return _problem(
        request,
        study,
        "Too many requests",
        "Too many people are starting this study from here right now. Please wait a minute "
        "and open the study link again.",
        status=429,
    )


def _limited(request: HttpRequest, study: Study, action: str) -> bool:
    """Count ``action`` per client, then (if let through) per study; True past a limit."""
    return not ratelimit.allow_all(
        (f"{action}:ip:{ratelimit.client_key(request)}", settings.STUDY_RATE_PER_IP),
        (f"{action}:study:{study.pk}", settings.STUDY_RATE_PER_STUDY),
    )


def _where(participant: Participant) -> str:
    """The page a participant belongs on now (a late participant is timed out first)."""
    study = participant.study
    if participant.is_late():
        services.participants_expire(study=study)
        participant.refresh_from_db()
    if participant.status == Participant.Status.QUALIFIED and study.activity_def.page:
        return study.activity_def.page_url(study.slug)  # the activity's own page
    if participant.status == Participant.Status.QUALIFIED:
        still_open = selectors.open_positions(participant)
        if still_open:
            return reverse("participate:rate", args=[study.slug, still_open[0]])
        return reverse("participate:done", args=[study.slug])
    name = {
        Participant.Status.STARTED: "qualification",
        Participant.Status.SCREENED_OUT: "screened_out",
        Participant.Status.FINISHED: "done",
        Participant.Status.TIMED_OUT: "timed_out",
    }[Participant.Status(participant.status)]
    return reverse(f"participate:{name}", args=[study.slug])


def _other_browser(request, study) -> HttpResponse:
    return _problem(
        request,
        study,
        "This study was started in another browser",
        "This Prolific ID has already started this study in another browser or device. "
        "For your privacy, answers are only shown in the browser where you started. Please "
        "continue there. If that is not possible, contact the researchers through Prolific.",
        status=409,
    )


def _invalid(request, study, exc: services.InvalidArrival) -> HttpResponse:
    return _problem(
        request,
        study,
        "This study link looks wrong",
        f"{exc.reason} ({exc.field}) Please go back to Prolific and open the study from there.",
        status=400,
    )


def arrive(request: HttpRequest, slug: str) -> HttpResponse:
    """``/s/<slug>/?PROLIFIC_PID=..&STUDY_ID=..&SESSION_ID=..``: the consent page; nothing
    is reserved or stored until the participant agrees (``consent``)."""
    study, participant = _participant(request, slug)
    pid = request.GET.get("PROLIFIC_PID")
    if participant is not None and pid in (None, participant.prolific_pid):
        return redirect(_where(participant))
    if participant is not None:
        return _problem(
            request,
            study,
            "You are already taking part with another Prolific ID",
            "This browser is already taking part in this study with a different Prolific ID. "
            "Please continue with the ID you started with.",
            status=409,
        )
    if pid is None:
        return _problem(
            request,
            study,
            "Open this study from Prolific",
            (
                "This link is missing your Prolific ID. Please start the study from the link on "
                "Prolific, which adds your ID automatically."
            ),
        )
    if _limited(request, study, "arrive"):
        return _too_many(request, study)
    study_id, session_id = request.GET.get("STUDY_ID", ""), request.GET.get("SESSION_ID", "")
    try:
        services.arrival_check(study=study, pid=pid, study_id=study_id, session_id=session_id)
    except services.InvalidArrival as exc:
        return _invalid(request, study, exc)
    if study.status != Study.Status.OPEN:
        return _not_open(request, study)
    if holds.pid_taken(study, pid):
        return _other_browser(request, study)
    # The token this browser will consent with, kept in its cookie from now on (it is
    # stored nowhere yet): when the consent's answer is lost, opening the link again or
    # submitting again resumes; another browser (another token) cannot.
    token = request.COOKIES.get(RESUME_COOKIE.format(slug), "")
    if not _token_shape(token):
        token = secrets.token_urlsafe(32)
    ctx = {
        "study": study,
        **study_texts.welcome_context(study),
        "arrival": {"pid": pid, "study_id": study_id, "session_id": session_id, "token": token},
    }
    response = render(request, "studies/welcome.html", ctx)
    _set_resume_cookie(response, study, token)
    return response


def _token_shape(token: str) -> bool:
    return 32 <= len(token) <= 64


def _set_resume_cookie(response: HttpResponse, study: Study, token: str) -> None:
    response.set_cookie(
        RESUME_COOKIE.format(study.slug),
        token,
        max_age=(study.hold_minutes(True) + 24 * 60) * 60,
        path=reverse("participate:arrive", args=[study.slug]),
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )


def _belongs(participant: Participant | None, status: str) -> TypeGuard[Participant]:
    """Whether the page of participants in ``status`` is this participant's now (a closed
    study lets everyone who started finish, and get the code, within their hold)."""
    return participant is not None and participant.status == status and not participant.is_late()


def _elsewhere(slug: str, participant: Participant | None) -> HttpResponse:
    """The redirect to the page this browser belongs on (the arrival page without a
    participant; 404 for a study that does not exist)."""
    if participant is None:
        _study(slug)
        return redirect("participate:arrive", slug)
    return redirect(_where(participant))


def _require(request, slug: str, status: str, late_answers: bool = False):
    """(study, participant, None) or (study, None, response redirecting elsewhere); with
    ``late_answers`` also a participant whose qualification answers past the hold are still
    taken (``late.answering_late``: kept and graded, never dropped)."""
    study, participant = _participant(request, slug)
    if late_answers and participant is not None and late.answering_late(participant):
        return study, participant, None
    if not _belongs(participant, status):
        return study, None, _elsewhere(slug, participant)
    return study, participant, None


def welcome(request: HttpRequest, slug: str) -> HttpResponse:
    """The guidelines again for a participant who has consented but not qualified yet."""
    study, participant, other = _require(request, slug, Participant.Status.STARTED)
    if other:
        return other
    ctx = {"study": study, "participant": participant, **study_texts.welcome_context(study)}
    return render(request, "studies/welcome.html", ctx)


def _not_open(request, study: Study) -> HttpResponse:
    """The page for an arrival at a paused or closed study, with what to do next."""
    if study.status == Study.Status.PAUSED:
        return _problem(
            request,
            study,
            "This study is paused",
            "The researchers have paused this study for a short while. Please open the study "
            "link again later. If you do not want to wait, return the study on Prolific: you "
            "have not started any work and lose nothing.",
        )
    return _problem(
        request,
        study,
        "This study is closed",
        "The researchers have closed this study, so there is no work for you. Please return "
        "the study on Prolific: you have not started any work and lose nothing.",
    )


def _code_page(request, slug: str, status: str, template: str, code_attr: str):
    study, participant, other = _require(request, slug, status)
    if other:
        return other
    code = getattr(study, code_attr)
    ctx = {"study": study, "code": code, "url": study.completion_url(code)}
    return render(request, template, ctx)


def done(request: HttpRequest, slug: str) -> HttpResponse:
    return _code_page(
        request, slug, Participant.Status.FINISHED, "studies/done.html", "completion_code"
    )


def screened_out(request: HttpRequest, slug: str) -> HttpResponse:
    return _code_page(
        request,
        slug,
        Participant.Status.SCREENED_OUT,
        "studies/screened_out.html",
        "screenout_code",
    )


def timed_out(request: HttpRequest, slug: str) -> HttpResponse:
    """The time-up page: which limit ended the session (the hold before the qualification
    test, or the study's time limit), what was kept, and the completion code whenever
    anything was kept (``late.time_up_context``); one who gave nothing is asked to return
    the study on Prolific, which costs them nothing."""
    study, participant = _participant(request, slug)
    if participant is not None and participant.status != Participant.Status.TIMED_OUT:
        where = _where(participant)  # a late participant is timed out here first
        if participant.status != Participant.Status.TIMED_OUT:
            return redirect(where)
    ctx = late.time_up_context(study, participant)
    return render(request, "studies/timed_out.html", ctx)


def closed(request: HttpRequest, slug: str) -> HttpResponse:
    return _not_open(request, _study(slug))


def guidelines(request: HttpRequest, slug: str) -> HttpResponse:
    study = _study(slug)
    return render(request, "studies/guidelines.html", {"study": study})
