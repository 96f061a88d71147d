"""The seam between studies and the activities that run on its machinery.

Studies does the arrival, consent, holds, qualification, time limits and code pages of every
study; what a qualified participant then does is the study's *activity* (``Study.activity``):
rating reserved samples (this app's own pages), or writing sentences or endings (the
``writing`` app), or anything an app registers here. Each activity's app fills the registry at
start-up (its ``AppConfig.ready``), so studies reaches an activity's pages and answers through
this record, never through URL or relation names built from strings, and never imports the
app. Adding an activity: an ``Activity`` in the new app and one ``register`` line in its
``ready``.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import QuerySet
from django.urls import reverse


@dataclass(frozen=True)
class Activity:
    """What studies needs to know of one activity.

    ``answers`` is the relation from ``Participant`` to the rows holding the participant's
    answers (a lookup such as ``"sentences"`` or ``"rater__ratings"``): the participants table
    counts them. For an activity that does not reserve a batch, it is also a reverse relation
    whose rows have a boolean ``late`` field (answers saved after the time limit)."""

    name: str  # the value of Study.activity
    answers: str
    verb: str = "answer"  # "... to {verb} your {items}" on the welcome page
    nouns: tuple[str, str] | None = None  # an item's (singular, plural); None: the task kind's
    # URL name (argument: the study's slug) of a qualified participant's page; "": studies'
    # own rating pages
    page: str = ""
    # URL name (argument: the study's pk) of the researcher's preview after a passed
    # qualification test; "": studies' rating preview
    preview: str = ""
    # studies reserves a batch of samples and attention checks at arrival; otherwise the
    # activity's app hands out its own items
    reserves_batch: bool = False
    # templates the studies pages include for this activity ("": the rating's own parts):
    # the welcome page's first paragraph, the qualification test's introduction, the study
    # page's action buttons (exports, preview) and its note for researchers
    intro_template: str = ""
    qualification_template: str = ""
    actions_template: str = ""
    note_template: str = ""
    answered_word: str = "rated"  # the participants table's column of answers

    def page_url(self, slug: str) -> str:
        return reverse(self.page, args=[slug])

    def preview_url(self, study_pk: int) -> str:
        return reverse(self.preview, args=[study_pk])

    def answers_of(self, participant) -> QuerySet:
        """The participant's answer rows (activities that hand out their own items)."""
        return getattr(participant, self.answers).all()


RATING = Activity(name="rating", answers="rater__ratings", reserves_batch=True)

_REGISTRY: dict[str, Activity] = {}


def register(activity: Activity) -> Activity:
    """Make ``activity`` known (idempotent for the same record; a second, different record
    under one name is a programming error)."""
    known = _REGISTRY.get(activity.name)
    if known is not None and known != activity:
        raise ValueError(f"activity {activity.name!r} is registered already")
    _REGISTRY[activity.name] = activity
    return activity


def unregister(name: str) -> None:
    """Forget an activity (tests that register one of their own)."""
    _REGISTRY.pop(name, None)


def get(name: str) -> Activity:
    """The registered activity ``name``; LookupError naming it when no app registered it."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise LookupError(
            f"no activity {name!r} is registered (known: {', '.join(sorted(_REGISTRY))})"
        ) from None


def names() -> list[str]:
    return sorted(_REGISTRY)
