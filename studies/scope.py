"""Studies in the rating scope (:mod:`annotations.scope`): which study a ``study=``
parameter names and which ratings and samples are its own."""

from __future__ import annotations

from django.db.models import CharField, F, OuterRef, Q, Subquery, Value
from django.db.models.functions import Cast, Concat

from annotations.scope import ScopeStudy

from .list_models import ListSlot
from .models import Study
from .shown_texts import current_in_study


def own_ratings(study_id: int) -> Q:
    """On ``Rating``: the ratings given in the study, by its own participants (imported
    ratings and other studies' ratings of the same samples are not the study's)."""
    return Q(rater__participant__study_id=study_id)


def find_study(value: str) -> ScopeStudy | None:
    """The study with this id, else with this slug; None when neither exists."""
    study = None
    if value.isascii() and value.isdigit() and len(value) < 19:
        study = Study.objects.filter(pk=int(value)).first()
    study = study or Study.objects.filter(slug=value).first()
    if study is None:
        return None
    return ScopeStudy(
        pk=study.pk,
        slug=study.slug,
        title=study.title,
        task_kind=study.task_kind,
        ratings=own_ratings(study.pk),
        samples=Q(studies=study.pk),
        current=current_in_study(study.pk),
    )


def list_name() -> Concat:
    """On ``ListSlot``: its list's name, ``<study slug> list <number>``, as the agreement
    page's groups and the ratings exports' ``group`` column write it."""
    number = Cast("list__number", CharField())
    return Concat(F("study__slug"), Value(" list "), number, output_field=CharField())


def rating_group() -> Subquery:
    """On ``Rating``: the name of the rater's fixed list (``list_name``: the group the
    agreement page takes them in, ``studies.lists``), NULL for a rater holding no list place;
    the ratings exports' ``group`` column (``annotations.rating_exports.register_group``)."""
    places = ListSlot.objects.filter(participant__rater_id=OuterRef("rater_id"))
    return Subquery(places.annotate(name=list_name()).values("name")[:1], output_field=CharField())
