from django.contrib import admin

from . import models


@admin.register(models.Dataset)
class DatasetAdmin(admin.ModelAdmin):
    list_display = ("name", "title", "task_kind")


@admin.register(models.Split)
class SplitAdmin(admin.ModelAdmin):
    list_display = ("__str__", "dataset", "name")


@admin.register(models.Homonym)
class HomonymAdmin(admin.ModelAdmin):
    search_fields = ("form",)


@admin.register(models.Sense)
class SenseAdmin(admin.ModelAdmin):
    list_display = ("homonym", "gloss", "example_sentence")
    search_fields = ("homonym__form", "gloss")
    list_select_related = ("homonym",)


@admin.register(models.Setup)
class SetupAdmin(admin.ModelAdmin):
    list_display = ("id", "homonym", "sentence")
    search_fields = ("homonym__form", "sentence", "precontext")
    list_select_related = ("homonym",)


@admin.register(models.Story)
class StoryAdmin(admin.ModelAdmin):
    list_display = ("id", "setup", "ending")
    raw_id_fields = ("setup",)
    list_select_related = ("setup__homonym",)


@admin.register(models.Sample)
class SampleAdmin(admin.ModelAdmin):
    list_display = ("__str__", "sample_id", "sense", "story")
    list_filter = ("split",)
    search_fields = ("dataset_id", "sample_id", "sense__homonym__form")
    raw_id_fields = ("story", "sense")
    list_select_related = ("split__dataset", "sense__homonym", "story__setup__homonym")


@admin.register(models.Rater)
class RaterAdmin(admin.ModelAdmin):
    list_display = ("pseudonym", "kind", "created_at")
    list_filter = ("kind",)
    search_fields = ("pseudonym",)


@admin.register(models.RaterExclusion)
class RaterExclusionAdmin(admin.ModelAdmin):
    list_display = ("rater", "source", "reason", "created_at", "revoked_at")
    list_filter = ("source",)
    raw_id_fields = ("rater",)


@admin.register(models.Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ("sample", "rater", "score", "nonsensical", "created_at")
    list_filter = ("score", "nonsensical")
    raw_id_fields = ("sample", "rater")
    list_select_related = ("sample__split__dataset", "rater")
