"""Participant pages under ``/s/<slug>/``. A participant is identified by their Prolific PID
at arrival and by the session afterwards; no page here shows aggregates, other raters'
answers or model scores. Researcher pages are in ``researcher_views``."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.views.decorators.http import require_http_methods

from . import defaults, selectors, services
from .forms import QualificationForm, RatingForm
from .models import Participant, Study

SESSION_KEY = "study_participant:{}"


def _study(slug: str) -> Study:
    return get_object_or_404(Study.objects.exclude(status=Study.Status.DRAFT), slug=slug)


def _participant(request: HttpRequest, study: Study) -> Participant | None:
    pk = request.session.get(SESSION_KEY.format(study.pk))
    return Participant.objects.filter(pk=pk, study=study).select_related("study").first()


def _problem(request, study, title: str, text: str, status: int = 200) -> HttpResponse:
    ctx = {"study": study, "title": title, "text": text}
    return render(request, "studies/problem.html", ctx, status=status)


def _where(participant: Participant) -> str:
    """The page a participant belongs on now."""
    slug = participant.study.slug
    if participant.is_active and participant.deadline() < timezone.now():
        services.participants_expire(study=participant.study)
        participant.refresh_from_db()
    if participant.is_active and participant.study.status == Study.Status.CLOSED:
        return reverse("participate:closed", args=[slug])
    name = {
        Participant.Status.STARTED: "welcome",
        Participant.Status.QUALIFIED: "rate_next",
        Participant.Status.SCREENED_OUT: "screened_out",
        Participant.Status.FINISHED: "done",
        Participant.Status.TIMED_OUT: "timed_out",
    }[participant.status]
    return reverse(f"participate:{name}", args=[slug])


def arrive(request: HttpRequest, slug: str) -> HttpResponse:
    """``/s/<slug>/?PROLIFIC_PID=..&STUDY_ID=..&SESSION_ID=..``"""
    study = _study(slug)
    pid = request.GET.get("PROLIFIC_PID")
    if pid is None:
        participant = _participant(request, study)
        if participant:
            return redirect(_where(participant))
        return _problem(
            request,
            study,
            "Open this study from Prolific",
            (
                "This link is missing your Prolific ID. Please start the study from the link on "
                "Prolific, which adds your ID automatically."
            ),
        )
    if not services.pid_is_valid(pid):
        return _problem(
            request,
            study,
            "Your Prolific ID looks wrong",
            (
                "The Prolific ID in this link is not valid. Please go back to Prolific and open "
                "the study from there."
            ),
            status=400,
        )
    try:
        participant = services.participant_arrive(
            study=study,
            pid=pid,
            study_id=request.GET.get("STUDY_ID", ""),
            session_id=request.GET.get("SESSION_ID", ""),
        )
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
    except services.StudyError as exc:
        return _problem(request, study, "This study is not available", exc.reason)
    request.session.cycle_key()
    request.session[SESSION_KEY.format(study.pk)] = participant.pk
    return redirect(_where(participant))


def _require(request, slug: str, status: str):
    """(study, participant, None) or (study, None, response redirecting elsewhere)."""
    study = _study(slug)
    participant = _participant(request, study)
    if participant is None:
        return study, None, redirect("participate:arrive", slug)
    late = participant.is_active and participant.deadline() < timezone.now()
    if participant.status != status or late or study.status == Study.Status.CLOSED:
        return study, None, redirect(_where(participant))
    return study, participant, None


def welcome(request: HttpRequest, slug: str) -> HttpResponse:
    """Consent and guidelines, then the qualification test."""
    study, participant, other = _require(request, slug, Participant.Status.STARTED)
    if other:
        return other
    ctx = {"study": study, "participant": participant, "n_items": _n_items(study)}
    return render(request, "studies/welcome.html", ctx)


def _n_items(study: Study) -> int:
    return study.samples_per_participant + study.attention_checks_per_batch


@require_http_methods(["GET", "POST"])
def qualification(request: HttpRequest, slug: str) -> HttpResponse:
    study, participant, other = _require(request, slug, Participant.Status.STARTED)
    if other:
        return other
    questions = list(study.check_questions.filter(in_qualification=True))
    form = QualificationForm(request.POST or None, questions=questions)
    if request.method == "POST" and form.is_valid():
        try:
            services.participant_qualify(participant=participant, answers=form.answers())
        except services.SessionOver:
            pass
        participant.refresh_from_db()
        return redirect(_where(participant))
    return render(request, "studies/qualification.html", {"study": study, "form": form})


def rate_next(request: HttpRequest, slug: str) -> HttpResponse:
    study, participant, other = _require(request, slug, Participant.Status.QUALIFIED)
    if other:
        return other
    items = selectors.batch_items(participant)
    pos = selectors.first_open_position(items)
    if pos is None:
        return redirect("participate:done", slug)
    return redirect("participate:rate", slug, pos)


def _shown_at(request: HttpRequest, study: Study, pos: int):
    """When the item was first shown (kept server-side, so a reload keeps the first time)."""
    key = f"shown:{study.pk}:{pos}"
    if key not in request.session:
        request.session[key] = timezone.now().isoformat()
    return parse_datetime(request.session[key])


@require_http_methods(["GET", "POST"])
def rate(request: HttpRequest, slug: str, pos: int) -> HttpResponse:
    """One item (Figure 4); each Next saves, then the next item is shown (post/redirect/get)."""
    study, participant, other = _require(request, slug, Participant.Status.QUALIFIED)
    if other:  # e.g. the last item sent twice: nothing is stored, the code page is shown
        return other
    items = selectors.batch_items(participant)
    reachable = selectors.first_open_position(items)
    if pos >= len(items) or (reachable is not None and pos > reachable):
        return redirect("participate:rate_next", slug)
    item = items[pos]
    form = RatingForm(request.POST or None, initial=_initial(item))
    if request.method == "POST" and form.is_valid():
        return _save(request, study, participant, pos, form)
    done = sum(1 for i in items if i.answered)
    ctx = {
        "study": study,
        "item": item,
        "form": form,
        "pos": pos,
        "total": len(items),
        "finished": done,
        "ui": defaults.UI,
        "scale": defaults.SCALE,
        "scale_intro": defaults.SCALE_INTRO,
        "back": pos - 1 if pos > 0 else None,
    }
    _shown_at(request, study, pos)
    return render(request, "studies/rate.html", ctx)


def _initial(item) -> dict:
    return {"score": item.score, "nonsensical": item.nonsensical, "comment": item.comment}


def _save(request, study, participant, pos, form) -> HttpResponse:
    answer = services.Answer(
        score=form.cleaned_data["score"],
        nonsensical=form.cleaned_data["nonsensical"],
        comment=form.cleaned_data["comment"],
        started_at=_shown_at(request, study, pos),
    )
    try:
        finished = services.item_save(participant=participant, position=pos, answer=answer)
    except services.StudyError:
        participant.refresh_from_db()
        return redirect(_where(participant))
    if finished:
        return redirect("participate:done", study.slug)
    return redirect("participate:rate_next", study.slug)


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
    study = _study(slug)
    return _problem(
        request,
        study,
        "Your time is up",
        (
            f"The time limit for this study ({study.time_limit_minutes} minutes) has passed, so "
            "your remaining items were given to other participants. Please return to Prolific."
        ),
    )


def closed(request: HttpRequest, slug: str) -> HttpResponse:
    study = _study(slug)
    text = "The researchers have closed this study. Thank you for your time."
    return _problem(request, study, "This study is closed", text)


def guidelines(request: HttpRequest, slug: str) -> HttpResponse:
    study = _study(slug)
    return render(request, "studies/guidelines.html", {"study": study})
