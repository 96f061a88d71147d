from django.contrib import admin

from . import models


@admin.register(models.Study)
class StudyAdmin(admin.ModelAdmin):
    list_display = ("title", "slug", "status", "ratings_per_sample", "created_at")
    list_filter = ("status",)


@admin.register(models.Participant)
class ParticipantAdmin(admin.ModelAdmin):
    """Participants by pseudonym only: the Prolific ids are shown to staff on the study's
    participants table alone (for payment reconciliation), never in the admin. Participants
    are created by the consent POST, not here."""

    list_display = ("rater", "study", "status", "started_at", "finished_at")
    list_filter = ("status", "study")
    list_select_related = ("rater", "study")
    raw_id_fields = ("rater",)
    exclude = ("prolific_pid", "prolific_study_id", "prolific_session_id", "resume_hash")
    readonly_fields = ("qualification_draw", "qualification_answers")

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(models.CheckQuestion)
class CheckQuestionAdmin(admin.ModelAdmin):
    list_display = ("homonym", "meaning", "expected", "tolerance", "study")
    list_filter = ("study", "in_qualification", "as_attention_check")


@admin.register(models.Slot)
class SlotAdmin(admin.ModelAdmin):
    list_display = ("study", "sample", "number", "status", "participant", "position")
    list_filter = ("status", "study")
    raw_id_fields = ("sample", "setup", "participant")


@admin.register(models.AttentionAnswer)
class AttentionAnswerAdmin(admin.ModelAdmin):
    list_display = ("participant", "question", "score", "passed", "answered_at")
    list_filter = ("passed",)
    raw_id_fields = ("participant",)
