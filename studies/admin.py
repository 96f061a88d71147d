from django.contrib import admin

from . import models


@admin.register(models.Study)
class StudyAdmin(admin.ModelAdmin):
    list_display = ("title", "slug", "status", "ratings_per_sample", "created_at")
    list_filter = ("status",)


@admin.register(models.Participant)
class ParticipantAdmin(admin.ModelAdmin):
    list_display = ("rater", "study", "status", "started_at", "finished_at")
    list_filter = ("status", "study")
    raw_id_fields = ("rater",)
