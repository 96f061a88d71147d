"""Prolific's own word on an arrival (optional): with ``PROLIFIC_API_TOKEN`` set and the
study's Prolific study id filled in, the consent POST asks Prolific's API for the submission
named by the link's ``SESSION_ID`` (``GET /api/v1/submissions/<id>/``: Prolific passes the
submission id as ``%SESSION_ID%``) and refuses the arrival unless that submission is this
participant's, in this study, and active. Made-up PIDs then hold nothing. The call has a
short timeout (``PROLIFIC_API_TIMEOUT``); a failure says what went wrong and stores nothing.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request

from django.conf import settings

from .models import Study
from .services import InvalidArrival, StudyError, arrival_check

# A submission in these states is one a participant is taking now (RESERVED: the place is
# taken but the study not opened yet).
ACTIVE = {"ACTIVE", "RESERVED"}
MAX_BODY = 64 * 1024


class ProlificRefused(InvalidArrival):
    """Prolific does not confirm this arrival; ``field`` names the link's parameter."""


class ProlificUnavailable(StudyError):
    """Prolific could not be asked (no answer in time, an error, the token refused)."""


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect is an error: following it would send the token to another server."""

    def redirect_request(self, *args, **kwargs):
        return None


_OPENER = urllib.request.build_opener(_NoRedirects)


def enabled(study: Study) -> bool:
    """Whether arrivals at ``study`` are checked with Prolific."""
    return bool(settings.PROLIFIC_API_TOKEN and study.prolific_study_id)


def submission_check(*, study: Study, pid: str, study_id: str = "", session_id: str = "") -> None:
    """Refuse an arrival Prolific does not confirm (``ProlificRefused``, an
    ``InvalidArrival``) or cannot be asked about (``ProlificUnavailable``, a ``StudyError``);
    nothing to do when the check is off (``enabled``). The link's own rules
    (``services.arrival_check``) come first, so a malformed link never reaches Prolific."""
    if not enabled(study):
        return
    arrival_check(study=study, pid=pid, study_id=study_id, session_id=session_id)
    if not session_id:
        raise ProlificRefused(
            "SESSION_ID", "This link has no SESSION_ID, which Prolific adds to its study links."
        )
    problem = submission_problem(
        submission_get(session_id), pid=pid, prolific_study_id=study.prolific_study_id
    )
    if problem:
        raise ProlificRefused(*problem)


def submission_problem(
    submission: dict | None, *, pid: str, prolific_study_id: str
) -> tuple[str, str] | None:
    """(field, reason) when Prolific's ``submission`` (None: Prolific knows none) does not
    confirm ``pid`` arriving at ``prolific_study_id``; None when it does."""
    if submission is None:
        return "SESSION_ID", "Prolific knows no submission with this link's SESSION_ID."
    if submission.get("participant", submission.get("participant_id")) != pid:
        return "PROLIFIC_PID", "Prolific says this submission is not this participant's."
    if submission.get("study_id") != prolific_study_id:
        return "STUDY_ID", "Prolific says this submission belongs to another study."
    status = str(submission.get("status", "")).upper()
    if status not in ACTIVE:
        shown = status.lower().replace("_", " ") or "not active"
        return "SESSION_ID", f"Prolific says this submission is {shown}, not active."
    return None


def submission_get(session_id: str) -> dict | None:
    """Prolific's submission ``session_id`` as a dict, or None when Prolific knows none (404).
    Raises ``ProlificUnavailable`` with a reason a participant can read."""
    base = settings.PROLIFIC_API_URL.rstrip("/")
    url = f"{base}/api/v1/submissions/{urllib.parse.quote(session_id, safe='')}/"
    request = urllib.request.Request(
        url,
        headers={
            "Authorization": f"Token {settings.PROLIFIC_API_TOKEN}",
            "Accept": "application/json",
        },
    )
    try:
        with _OPENER.open(request, timeout=settings.PROLIFIC_API_TIMEOUT) as response:
            body = response.read(MAX_BODY + 1)
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return None
        raise ProlificUnavailable(_http_reason(exc.code)) from None
    except (urllib.error.URLError, TimeoutError, OSError):
        raise ProlificUnavailable(_UNREACHABLE) from None
    return _parsed(body)


_UNREACHABLE = (
    "We could not confirm your place with Prolific just now (Prolific did not answer in "
    "time). Please open the study link again in a minute; nothing was stored."
)


def _http_reason(code: int) -> str:
    if code in (401, 403):
        return (
            "We could not confirm your place with Prolific: Prolific refused this site's API "
            "token. Please tell the researchers through Prolific; nothing was stored."
        )
    return (
        f"We could not confirm your place with Prolific just now (Prolific answered {code}). "
        "Please open the study link again in a minute; nothing was stored."
    )


def _parsed(body: bytes) -> dict:
    try:
        data = json.loads(body) if len(body) <= MAX_BODY else None
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise ProlificUnavailable(
            "We could not confirm your place with Prolific just now (its answer was not "
            "readable). Please open the study link again in a minute; nothing was stored."
        )
    return data
