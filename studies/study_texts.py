"""Participant texts generated from a study's settings, so that no page contradicts another:
the item noun of the study's task kind or writing activity ("sample", "pair", "sentence",
"ending"), counts, and the time limits that apply (the welcome page lists them; the
guidelines name them through placeholders).

A study's guidelines may hold these placeholders, replaced when a page shows them (the
defaults use the first; a researcher may use any):

    {items}                 the batch: "30 samples", "6 pairs", "2 sentences"
    {checks}                the attention checks: "1 attention check", "no attention check"
    {time_limit}            the study's time limit: "60 minutes"
    {qualification_time}    the hold until the qualification test is passed: "10 minutes"

Unknown ``{...}`` text is left as it is (a guideline may use braces of its own).
"""

from __future__ import annotations

import math
from typing import NamedTuple

from . import defaults, kind_pages, lists, selectors
from .models import Study

PLACEHOLDERS = ("{items}", "{checks}", "{time_limit}", "{qualification_time}")


def item_nouns(study: Study) -> tuple[str, str]:
    """The (singular, plural) noun of one item of ``study``: its activity's, else its task
    kind's."""
    return study.activity_def.nouns or defaults.item_nouns(study.task_kind)


def counted(n: int, nouns: tuple[str, str]) -> str:
    """ "1 sample", "30 samples", "0 samples"."""
    return f"{n} {nouns[0] if n == 1 else nouns[1]}"


def minutes(n: int) -> str:
    return counted(n, ("minute", "minutes"))


class Span(NamedTuple):
    """How many items: ``fewest`` to ``most`` (equal but for lists of different lengths);
    shown as "30" or "29 to 30"."""

    fewest: int
    most: int

    def __str__(self) -> str:
        return str(self.most) if self.fewest == self.most else f"{self.fewest} to {self.most}"

    def plus(self, n: int) -> Span:
        return Span(self.fewest + n, self.most + n)


def items_per_participant(study: Study) -> Span:
    """How many samples one participant of ``study`` gets, attention checks aside: the
    length of its fixed lists (``lists.list_lengths``: an uploaded file's lists may be
    longer or shorter than the setting) or ``samples_per_participant``. The one rule every
    page and estimate that names the batch follows; read once per study instance (the
    welcome page and its guidelines both ask)."""
    cached = study.__dict__.get("_items_per_participant")
    if cached is None:
        lengths = lists.list_lengths(study) if study.activity_def.reserves_batch else None
        n = study.samples_per_participant
        cached = study.__dict__["_items_per_participant"] = Span(*(lengths or (n, n)))
    return cached


def batch_text(study: Study) -> str:
    """How many items one participant gets, with the kind's noun ("30 samples", "29 to 30
    samples")."""
    span = items_per_participant(study)
    nouns = item_nouns(study)
    return f"{span} {nouns[0] if span.most == 1 else nouns[1]}"


def checks_text(study: Study) -> str:
    n = study.attention_checks_per_batch if study.activity_def.reserves_batch else 0
    return counted(n, ("attention check", "attention checks")) if n else "no attention check"


def placeholder_values(study: Study) -> dict[str, str]:
    return {
        "{items}": batch_text(study),
        "{checks}": checks_text(study),
        "{time_limit}": minutes(study.hold_minutes(True)),
        "{qualification_time}": minutes(study.hold_minutes(False)),
    }


def filled(text: str, study: Study) -> str:
    """``text`` (a study's guidelines) with the placeholders replaced by the study's
    settings."""
    if "{" not in text:
        return text
    for mark, value in placeholder_values(study).items():
        text = text.replace(mark, value)
    return text


# studies.late keeps and grades qualification answers that come after the hold
LATE_ANSWERS = " Answers sent later are still saved."


class Limit(NamedTuple):
    """One time limit a participant is told about: ``key`` "hold" (until the qualification
    test is passed) or "study" (from consent to the end, the qualification included)."""

    key: str
    minutes: int
    text: str


def limits(study: Study, *, has_test: bool) -> list[Limit]:
    """Every time limit that applies to a participant of ``study``, from its settings
    (``Study.hold_minutes``, the rule the holds and time-outs use), in the order they
    meet them. The hold is left out where it is not shorter than the study's limit."""
    total, hold = study.hold_minutes(True), study.hold_minutes(False)
    out = []
    if hold < total:
        what = "answer the qualification test" if has_test else "press Start on the next page"
        out.append(
            Limit(
                "hold",
                hold,
                f"{minutes(hold)} from when you agree below to {what}: your place in the study "
                f"is held for you that long.{LATE_ANSWERS if has_test else ''}",
            )
        )
    doing = study.activity_def.verb
    out.append(
        Limit(
            "study",
            total,
            f"{minutes(total)} in all from when you agree below to {doing} your "
            f"{item_nouns(study)[1]}, the qualification test included. When the time is up, "
            "what you have sent is kept and you get a code for it.",
        )
    )
    return out


def welcome_context(study: Study) -> dict:
    """What the welcome page shows beside the study itself (the participant's, the
    preview's): the number of items, the estimated duration and the time limits."""
    has_test = bool(selectors.qualification_questions(study))
    samples = items_per_participant(study)
    return {
        "n_samples": samples,  # the kinds' intros: "{{ n_samples }} pair{{ ...most|pluralize }}"
        "n_items": samples.plus(study.attention_checks_per_batch),
        "estimate": duration_estimate(study),
        "limits": limits(study, has_test=has_test),
        "has_test": has_test,
        "kind_intro_template": kind_pages.get(study.task_kind).intro_template,
    }


def duration_estimate(study: Study) -> int:
    """Minutes a participant needs, for the welcome page: the median of the study's finished
    participants (``selectors.finished_minutes``) once there are at least 3, else about one
    minute per story plus 5 minutes for the guidelines and the test; never above the time
    limit."""
    finished, median = selectors.finished_minutes(study.pk)
    if finished >= 3:
        minutes = math.ceil(median)
    else:
        minutes = 5 + items_per_participant(study).most + study.attention_checks_per_batch
    return max(1, min(minutes, study.time_limit_minutes))
