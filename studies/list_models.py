"""The list design's tables (``studies.lists``): a study assigned by fixed lists has a
``ListDesign``; its lists (``StudyList``) hold samples (``StudyListItem``, one per setup at
most), and each list has ``ratings_per_sample`` places (``ListSlot``), one per Latin-square
rotation, each held by one participant at a time. ``studies.models`` imports this module,
so Django finds the models there."""

from __future__ import annotations

from django.db import models
from django.db.models import Q


class ListDesign(models.Model):
    """The study is assigned by fixed lists instead of per sample."""

    class Source(models.TextChoices):
        MADE = "made", "Made from the study's samples"
        UPLOADED = "uploaded", "Uploaded by the researcher"

    study = models.OneToOneField("studies.Study", on_delete=models.CASCADE, related_name="design")
    latin_square = models.BooleanField(
        default=True,
        help_text="Rotate the order of a list's items across its participants (a Latin "
        "square); off: each participant sees the list in an order of their own.",
    )
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.MADE)
    seed = models.PositiveIntegerField(default=0, help_text="The seed lists are made with.")

    def __str__(self) -> str:
        return f"lists of {self.study}"


class StudyList(models.Model):
    study = models.ForeignKey("studies.Study", on_delete=models.CASCADE, related_name="lists")
    number = models.PositiveIntegerField()

    class Meta:
        ordering = ["study_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["study", "number"], name="one_list_per_number")
        ]

    def __str__(self) -> str:
        return f"{self.study} / list {self.number}"


class StudyListItem(models.Model):
    """A sample in a list at its place in the list's base order. ``setup`` is copied from
    the sample so the database refuses two variants of one story in a list."""

    list = models.ForeignKey(StudyList, on_delete=models.CASCADE, related_name="items")
    sample = models.ForeignKey("annotations.Sample", on_delete=models.PROTECT, related_name="+")
    setup = models.ForeignKey("annotations.Setup", on_delete=models.PROTECT, related_name="+")
    position = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["list_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["list", "position"], name="one_item_per_list_position"),
            models.UniqueConstraint(fields=["list", "sample"], name="one_sample_per_list"),
            models.UniqueConstraint(fields=["list", "setup"], name="one_setup_per_list"),
        ]

    def __str__(self) -> str:
        return f"{self.list} #{self.position}: sample {self.sample_id}"


class ListSlot(models.Model):
    """One of a list's places: the participant holding it rates the whole list, in the
    order of its Latin-square ``rotation``. A place given back (timeout, screen-out) after
    some ratings is ``released`` and one excluded is ``void``; either way a fresh free place
    with the same rotation and the next number re-offers the whole list."""

    class Status(models.TextChoices):
        FREE = "free", "Free"
        HELD = "held", "Held by a participant"
        RELEASED = "released", "Given back after some ratings (replaced)"
        VOID = "void", "Void: the participant was excluded (replaced)"

    study = models.ForeignKey("studies.Study", on_delete=models.CASCADE, related_name="+")
    list = models.ForeignKey(StudyList, on_delete=models.CASCADE, related_name="slots")
    rotation = models.PositiveSmallIntegerField()
    number = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.FREE)
    participant = models.OneToOneField(
        "studies.Participant",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="list_slot",
    )
    reserved_at = models.DateTimeField(null=True, blank=True)

    COUNTED = (Status.FREE, Status.HELD)

    class Meta:
        ordering = ["list_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["list", "number"], name="one_list_slot_per_number"),
            models.UniqueConstraint(
                fields=["list", "rotation"],
                condition=Q(status__in=["free", "held"]),
                name="one_counted_list_slot_per_rotation",
            ),
            models.CheckConstraint(
                condition=(Q(status="free") & Q(participant__isnull=True))
                | (~Q(status="free") & Q(participant__isnull=False)),
                name="list_slot_held_iff_not_free",
            ),
        ]
        indexes = [models.Index(fields=["study", "status"])]

    def __str__(self) -> str:
        return f"{self.list} place {self.number} ({self.status})"
