"""The participant's rating pages: one item of the batch at a time, its save, and the next
item in the same response (a fragment for the page's own script). The arrival, consent,
qualification and code pages are ``studies.views``."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.contrib import messages
from django.contrib.messages import get_messages
from django.core import signing
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.template.loader import get_template
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from . import defaults, late, selectors, services
from .forms import RatingForm
from .models import Participant
from .views import (
    PAGE_URL_HEADER,
    SHOWN_COOKIE,
    _belongs,
    _elsewhere,
    _require,
    _token_hash,
    _url,
    _where,
)


def rate_next(request: HttpRequest, slug: str) -> HttpResponse:
    """The first open item (kept for old links; Next answers 303 to the item directly)."""
    study, participant, other = _require(request, slug, Participant.Status.QUALIFIED)
    if other:
        return other
    return redirect(_where(participant))


def _shown_at(request: HttpRequest, slug: str, pos: int):
    """When the item at ``pos`` was first shown: kept in a signed cookie (no session row), so
    a reload keeps the first time and the participant cannot change it."""
    shown = _shown_cookie(request, slug)
    if shown is not None and shown[0] == pos:
        return shown[1]
    return None


def _shown_cookie(request: HttpRequest, slug: str) -> tuple[int, datetime] | None:
    """The signed (position, first shown) cookie, checked once per request (a save and the
    page that follows it both ask)."""
    memo = request.__dict__.setdefault("_shown_cookie", {})
    if slug not in memo:
        memo[slug] = None
        try:
            pos, iso = str(request.get_signed_cookie(SHOWN_COOKIE.format(slug))).split("|", 1)
            memo[slug] = (int(pos), datetime.fromisoformat(iso))
        except (KeyError, ValueError, signing.BadSignature):
            pass
    return memo[slug]


class _SeeOther(HttpResponseRedirect):
    """303: the browser GETs the next item after the rating POST."""

    status_code = 303


def _see_other(url: str) -> HttpResponse:
    return _SeeOther(url)


# participant.js sends Next with fetch() and this header: the POST then answers with the next
# item's page itself (200, its address in PAGE_URL_HEADER) instead of a 303 the browser
# would follow with a second request; the script swaps the page in and moves the address
# bar there. Without the script the form posts normally and gets the 303.
IN_PAGE_HEADER = "X-Rating-Page"


PAGE_LAYOUT = "studies/participant_base.html"


FRAGMENT_LAYOUT = "studies/fragment_base.html"


def _in_page(request: HttpRequest) -> bool:
    return request.headers.get(IN_PAGE_HEADER) == "1"


@require_http_methods(["GET", "POST"])
def rate(request: HttpRequest, slug: str, pos: int) -> HttpResponse:
    """One item (Figure 4). Next POSTs here and saves; the answer is a 303 straight to the
    next open item's page (or the code page), or that page itself for participant.js."""
    if request.method == "POST":
        return _rate_post(request, slug, pos)
    study, participant, other = _require(request, slug, Participant.Status.QUALIFIED)
    if other:
        return other
    return _item_page(request, participant, pos)


def _rate_post(request: HttpRequest, slug: str, pos: int) -> HttpResponse:
    """Save one answer. The participant is read by its token and locked in one query, in
    the transaction of the save (``services.participant_locked``), and the page that
    follows is built in it too; a refused answer shows the item again with what was sent."""
    participant = None
    try:
        with services.participant_locked(
            slug=slug, token_hash=_token_hash(request, slug)
        ) as participant:
            if _belongs(participant, Participant.Status.QUALIFIED) or (
                participant is not None and late.answer_in_flight(participant)
            ):
                form = RatingForm(request.POST, kind=participant.study.task_kind)
                if not form.is_valid():
                    return _item_page(request, participant, pos, form)
                return _save(request, participant, pos, form)
    except services.TextChanged as exc:  # nothing stored: the page shows the new text
        messages.warning(request, exc.reason)
        if _in_page(request) and participant is not None:
            # in this answer: a redirect would be followed by fetch(), whose page would
            # show (and use up) the notice before the script loads the item again
            return _item_page(request, participant, pos)
        return _see_other(reverse("participate:rate", args=[slug, pos]))
    except services.StudyError:  # e.g. an item beyond the first open one: nothing stored
        if participant is None:  # never: only the save raises, and it needs one
            raise
        participant.refresh_from_db()
        return _see_other(_where(participant))
    # e.g. the last item sent twice: nothing is stored, the code page is shown
    return _elsewhere(slug, participant)


def _item_page(
    request, participant, pos: int, form=None, saved: services.Saved | None = None
) -> HttpResponse:
    """The page of the item at ``pos`` (``form``: the refused answer to show again;
    ``saved``: what a save just left, the batch's rows and that item, not read again)."""
    study = participant.study
    rows = saved.rows if saved is not None else selectors.batch_rows(participant.pk)
    reachable = selectors.first_open_position(rows)
    row = next((r for r in rows if r.position == pos), None)
    if row is None or (reachable is not None and pos > reachable):
        return redirect(_where(participant))
    item = saved.next_item if saved is not None and saved.next_item else None
    item = item or selectors.batch_item(participant, row)
    answer = (
        form.shown_answer()
        if form is not None
        else RatingForm.shown(item.score, item.nonsensical, item.comment)
    )
    done = sum(1 for row in rows if row.answered)
    in_page = _in_page(request)
    ctx = {
        "study": study,
        "item": item,
        "answer": answer,
        "pos": pos,
        "total": len(rows),
        "finished": done,
        **defaults.page_context(study.task_kind),
        "back_url": _url("participate:rate", study.slug, pos - 1) if pos else "",
        "guidelines_url": _url("participate:guidelines", study.slug),
        "seconds_left": late.seconds_left(participant),
        # participant.js swaps in the title and <main> only (fragment_base.html), and keeps
        # the form's CSRF token of the page it swaps into: a token here would be masked anew
        # (32 random letters) and its cookie sent again with every item, for nothing
        "in_page": in_page,
        "layout": FRAGMENT_LAYOUT if in_page else PAGE_LAYOUT,
    }
    url = _url("participate:rate", study.slug, pos)
    if url != request.path and ctx["layout"] == PAGE_LAYOUT:  # the qualification's answer
        ctx |= {"page_url": url, "hold_beat": False}  # canonical link, form action
    response = _render(request, ctx)
    response[PAGE_URL_HEADER] = url
    if _shown_at(request, study.slug, pos) is None:
        response.set_signed_cookie(
            SHOWN_COOKIE.format(study.slug),
            f"{pos}|{timezone.now().isoformat()}",
            path=_url("participate:arrive", study.slug),
            secure=settings.SESSION_COOKIE_SECURE,
            httponly=True,
            samesite="Lax",
        )
    return response


def _render(request: HttpRequest, ctx: dict) -> HttpResponse:
    """The rating page; for participant.js its title and ``<main>`` (``FRAGMENT_LAYOUT``),
    rendered from ``ctx`` and the notices alone: the context processors' entries (the
    request, the user, the CSRF token, stale dashboard figures) are not used by it, and
    building them was about a quarter of its rendering (docs/performance.md, row 20)."""
    if ctx["in_page"]:
        page = get_template("studies/rate.html").render({**ctx, "messages": get_messages(request)})
        return HttpResponse(page)
    return render(request, "studies/rate.html", ctx)


def first_item_page(request, participant) -> HttpResponse | None:
    """The page of the participant's first open item, in the answer to their qualification
    POST (None: nothing is open)."""
    rows = selectors.batch_rows(participant.pk)
    pos = selectors.first_open_position(rows)
    if pos is None:
        return None
    return _item_page(request, participant, pos, saved=services.Saved(pos, rows))


def _save(request, participant, pos, form) -> HttpResponse:
    """Save one answer (inside ``participant_locked``); 303 to the next open item. A
    position that is not in the batch, or beyond the first open item, is refused by the
    service (``StudyError``, for the caller) and nothing is stored."""
    study = participant.study
    answer = services.Answer(
        score=form.cleaned_data["score"],
        nonsensical=form.cleaned_data["nonsensical"],
        comment=form.cleaned_data["comment"],
        started_at=_shown_at(request, study.slug, pos) or timezone.now(),
        text_version=form.cleaned_data.get("text_version") or "",
    )
    in_page = _in_page(request)  # the next item's page comes in this answer
    saved = services.item_save(
        participant=participant, position=pos, answer=answer, with_next=in_page
    )
    if saved.next_position is None:
        return _see_other(reverse("participate:done", args=[study.slug]))
    if participant.status == Participant.Status.TIMED_OUT:  # saved just after the limit
        return _see_other(reverse("participate:timed_out", args=[study.slug]))
    if in_page:
        return _item_page(request, participant, saved.next_position, saved=saved)
    return _see_other(_url("participate:rate", study.slug, saved.next_position))
