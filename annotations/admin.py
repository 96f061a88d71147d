"""The admin pages of the AmbiStory data: each model's list columns, search, filters and
id fields, one line of options a model (none of them needs more than options)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import Model

from . import models
from .data_versions import EVERY_KIND, data_changed


class DataAdmin(admin.ModelAdmin):
    """An admin of data the dashboards count: a change or deletion here bypasses the
    services, so it bumps every kind's data version itself (``annotations.data_versions``;
    the admin's views run in a transaction)."""

    def save_model(self, request, obj, form, change) -> None:
        super().save_model(request, obj, form, change)
        data_changed(kind=EVERY_KIND)

    def delete_model(self, request, obj) -> None:
        super().delete_model(request, obj)
        data_changed(kind=EVERY_KIND)

    def delete_queryset(self, request, queryset) -> None:
        super().delete_queryset(request, queryset)
        data_changed(kind=EVERY_KIND)


def _register(model: type[Model], **options: Any) -> None:
    admin.site.register(model, type(f"{model.__name__}Admin", (DataAdmin,), options))


_register(models.Dataset, list_display=("name", "title", "task_kind"))

_register(models.Split, list_display=("__str__", "dataset", "name"))

_register(models.Homonym, search_fields=("form",))

_register(
    models.Sense,
    list_display=("homonym", "gloss", "example_sentence"),
    search_fields=("homonym__form", "gloss"),
    list_select_related=("homonym",),
)

_register(
    models.Setup,
    list_display=("id", "homonym", "sentence"),
    search_fields=("homonym__form", "sentence", "precontext"),
    list_select_related=("homonym",),
)

_register(
    models.Story,
    list_display=("id", "setup", "ending"),
    raw_id_fields=("setup",),
    list_select_related=("setup__homonym",),
)

_register(
    models.Sample,
    list_display=("__str__", "sample_id", "sense", "story"),
    list_filter=("split",),
    search_fields=("dataset_id", "sample_id", "sense__homonym__form"),
    raw_id_fields=("story", "sense"),
    list_select_related=("split__dataset", "sense__homonym", "story__setup__homonym"),
)

_register(
    models.Rater,
    list_display=("pseudonym", "kind", "created_at"),
    list_filter=("kind",),
    search_fields=("pseudonym",),
)

_register(
    models.RaterExclusion,
    list_display=("rater", "source", "reason", "created_at", "revoked_at"),
    list_filter=("source",),
    raw_id_fields=("rater",),
)

_register(
    models.Rating,
    list_display=("sample", "rater", "score", "nonsensical", "created_at"),
    list_filter=("score", "nonsensical"),
    raw_id_fields=("sample", "rater"),
    list_select_related=("sample__split__dataset", "rater"),
)
