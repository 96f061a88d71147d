"""The consent and the qualification test: their POSTs are answered with the page that
follows (the test, the first item) rather than a redirect (``_next_page``). The arrival
link's page and the helpers they share are ``studies.views``; the items ``rating_views``."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from ambisite import ratelimit

from . import defaults, late, prolific, services
from .forms import QualificationForm
from .models import Participant, Study
from .qualification import participant_bots, participant_questions
from .rating_views import first_item_page
from .views import (
    PAGE_URL_HEADER,
    _elsewhere,
    _invalid,
    _limited,
    _not_open,
    _other_browser,
    _participant,
    _problem,
    _require,
    _set_resume_cookie,
    _token_shape,
    _too_many,
    _url,
    _where,
)


@require_http_methods(["GET", "POST"])
def consent(request: HttpRequest, slug: str) -> HttpResponse:
    """The participant agrees: create them, reserve their batch (held briefly until the
    qualification test) and give this browser the resume token. A GET (the address a
    browser without participant.js shows for the test sent in the consent's answer, opened
    again) goes to the page this browser belongs on, or to the arrival page."""
    study, participant = _participant(request, slug)
    if request.method != "POST":
        return _elsewhere(slug, participant)
    if participant is not None:
        return redirect(_where(participant))
    if _limited(request, study, "arrive"):
        return _too_many(request, study)
    token = request.POST.get("token", "")
    if not _token_shape(token):
        return _problem(
            request, study, "Please start again", "Open the study link from Prolific again.", 400
        )
    arrival = {name: request.POST.get(name, "") for name in ("pid", "study_id", "session_id")}
    try:
        prolific.submission_check(study=study, **arrival)  # off unless a token is configured
        hashed, client = services.resume_hash(token), ratelimit.client_key(request)
        participant = services.participant_arrive(
            study=study, resume_hash=hashed, client=client, **arrival
        )
    except services.InvalidArrival as exc:
        return _invalid(request, study, exc)
    except services.OtherBrowser:
        return _other_browser(request, study)
    except services.StudyFull:
        return _problem(
            request,
            study,
            "This study is full",
            (
                "All places in this study are taken, so there is no work for you. Please return "
                "the study on Prolific. You have not started any work and lose nothing."
            ),
        )
    except services.StudyBusy as exc:
        return _problem(
            request,
            study,
            "Please try again in a few minutes",
            f"{exc.reason} Please open the study link again in a few minutes. You have not "
            "started any work and lose nothing.",
            status=429,
        )
    except services.StudyError as exc:
        if study.status != Study.Status.OPEN:  # paused or closed since the consent page
            return _not_open(request, study)
        return _problem(request, study, "This study is not available", exc.reason)
    response = _next_page(request, participant)
    _set_resume_cookie(response, study, token)
    return response


def _next_page(request: HttpRequest, participant: Participant) -> HttpResponse:
    """The answer to a consent or a qualification POST: the page the participant belongs on
    now, sent in this answer when it is the qualification test or an item (one round trip
    instead of a redirect and its GET, as a rating's POST answers with the next item). Its
    own address goes with it (``X-Page-Url`` and the page's canonical link, which
    participant.js puts in the address bar, so that a reload or Back GETs it); sending the POST
    again creates nothing (the consent finds the token's participant, the grading its
    status). Any other page (late, an activity's own page, screened out) is a redirect."""
    study = participant.study
    if not participant.is_late():
        if participant.status == Participant.Status.STARTED:
            return _qualification_page(request, study, participant)
        if participant.status == Participant.Status.QUALIFIED and not study.activity_def.page:
            page = first_item_page(request, participant)
            if page is not None:
                return page
    return redirect(_where(participant))


@require_http_methods(["GET", "POST"])
def qualification(request: HttpRequest, slug: str) -> HttpResponse:
    posted = request.method == "POST"
    study, participant, other = _require(request, slug, Participant.Status.STARTED, posted)
    if other:
        return other
    if not posted:
        return _qualification_page(request, study, participant)
    form = _qualification_form(participant, request.POST)
    if _limited(request, study, "qualify"):
        return _too_many(request, study)
    if not form.is_valid():
        return _qualification_page(request, study, participant, form)
    try:  # leaves ``participant`` as stored: not read again
        services.participant_qualify(
            participant=participant,
            answers=form.answers(),
            questions=form.questions,
            bot_answers=form.bot_answers(),
        )
    except services.SessionOver:
        pass
    return _next_page(request, participant)


def _qualification_form(participant: Participant, data=None) -> QualificationForm:
    return QualificationForm(
        data,
        questions=participant_questions(participant),
        kind=participant.study.task_kind,
        bots=participant_bots(participant),
    )


def _qualification_page(request, study, participant, form=None) -> HttpResponse:
    """The qualification test (``form``: the answers refused, shown again); in the answer to
    the consent also its address (``page_url``) for the form and the address bar, and the
    hold's heartbeat."""
    url = _url("participate:qualification", study.slug)
    ctx = {
        "study": study,
        "form": form if form is not None else _qualification_form(participant),
        **defaults.page_context(study.task_kind),
        "seconds_left": late.seconds_left(participant),  # the hold: the test's own clock
    }
    if url != request.path:
        ctx |= {"page_url": url, "hold_beat": True}
    response = render(request, "studies/qualification.html", ctx)
    response[PAGE_URL_HEADER] = url
    return response
