"""Read-only views of the writing data: texts are changed through the review pages (which
log every decision), never edited here."""

from django.contrib import admin

from . import models


class ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(models.SensePair)
class SensePairAdmin(ReadOnly):
    list_display = ("homonym", "sense_a", "sense_b", "excluded")
    list_filter = ("excluded",)
    list_select_related = ("homonym", "sense_a", "sense_b")


@admin.register(models.Sentence)
class SentenceAdmin(ReadOnly):
    list_display = ("text", "edited_text", "decision", "created_at")
    list_filter = ("decision",)


@admin.register(models.Ending)
class EndingAdmin(ReadOnly):
    list_display = ("text", "edited_text", "decision", "created_at")
    list_filter = ("decision",)


@admin.register(models.Precontext)
class PrecontextAdmin(ReadOnly):
    list_display = ("sentence", "source", "status", "prompt_version", "model", "created_at")
    list_filter = ("status", "source", "prompt_version")


@admin.register(models.ReviewDecision)
class ReviewDecisionAdmin(ReadOnly):
    list_display = ("decision", "text_after", "reason", "by", "at")
    list_filter = ("decision",)


@admin.register(models.EndingEdit)
class EndingEditAdmin(ReadOnly):
    list_display = ("ending", "text_before", "late", "at")
    list_filter = ("late",)
