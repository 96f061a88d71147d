"""The AmbiStory data model.

A homonym has senses; a setup is a precontext plus an ambiguous sentence using the homonym;
a story is a setup with one ending (or none); a sample is a story judged for one sense; a
rating is one rater's 1-5 judgment of a sample. Means and SDs are always derived from the
ratings, never stored.
"""

from __future__ import annotations

import functools
import operator

from django.db import models
from django.db.models import Avg, Count, Exists, F, OuterRef, Q, StdDev

from ambisite.fields import who

from .kinds import KINDS, SCORE_MAX, SCORE_MIN, SENSE_CANDIDATES_MAX

__all__ = ["SCORE_MAX", "SCORE_MIN", "SENSE_CANDIDATES_MAX"]  # read here by other modules


class TaskKind(models.TextChoices):
    """What a judgment is: the plausibility of a sense in a story (1-5), the relatedness of
    a word's meanings across two sentences (0-4), or a choice among N candidate senses.
    Samples have the kind of their dataset; a study has one kind
    and only samples of that kind; a rating's ``score`` reads by the kind (see
    :data:`SCORE_RANGES`)."""

    PLAUSIBILITY = "plausibility", "Plausibility (1-5)"
    RELATEDNESS = "relatedness", "Relatedness (0-4)"
    SENSE_CHOICE = "sense_choice", "Sense choice"
    USE_PAIR = "use_pair", "Use pair (DURel 1-4, 0 = cannot decide)"


# Inclusive score range per kind (``annotations.kinds``).
SCORE_RANGES: dict[str, tuple[int, int]] = {k: KINDS[k].score_range for k in TaskKind.values}
GRADED_KINDS = tuple(TaskKind(k) for k in TaskKind.values if KINDS[k].graded)


def score_range(kind: str) -> tuple[int, int]:
    """The inclusive (lowest, highest) score a rating of ``kind`` may hold."""
    return SCORE_RANGES[TaskKind(kind)]


def _score_in_range_condition() -> Q:
    """One check for every kind: the rating's kind picks the range (the database's copy
    of :func:`score_range`)."""
    conditions = [
        Q(kind=kind, score__gte=low, score__lte=high) for kind, (low, high) in SCORE_RANGES.items()
    ]
    return functools.reduce(operator.or_, conditions)


class Dataset(models.Model):
    """A body of data with one task kind, e.g. AmbiStory (plausibility, 1-5)."""

    TaskKind = TaskKind

    name = models.SlugField(max_length=64, unique=True)
    title = models.CharField(max_length=200)
    task_kind = models.CharField(
        max_length=20, choices=TaskKind.choices, default=TaskKind.PLAUSIBILITY
    )
    source = models.CharField(max_length=300, blank=True)
    licence = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Split(models.Model):
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="splits")
    name = models.SlugField(max_length=64)

    class Meta:
        ordering = ["dataset__name", "name"]
        constraints = [
            models.UniqueConstraint(fields=["dataset", "name"], name="unique_split_per_dataset")
        ]

    def __str__(self) -> str:
        return f"{self.dataset.name}/{self.name}"


class Homonym(models.Model):
    """A word form as it appears in the ambiguous sentence (e.g. ``bugs``)."""

    form = models.CharField(max_length=100, unique=True)

    class Meta:
        ordering = ["form"]

    def __str__(self) -> str:
        return self.form


class Versioned(models.Model):
    """A text that can be edited: ``version`` counts the edits; the earlier texts are
    ``TextVersion`` rows (``annotations.text_versions``)."""

    version = models.PositiveIntegerField(
        default=1, db_default=1, help_text="Goes up by one each time the text is edited."
    )

    class Meta:
        abstract = True


class Sense(Versioned):
    homonym = models.ForeignKey(Homonym, on_delete=models.CASCADE, related_name="senses")
    gloss = models.TextField()
    example_sentence = models.TextField(blank=True)

    class Meta:
        ordering = ["homonym__form", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["homonym", "gloss", "example_sentence"], name="unique_sense"
            )
        ]

    def __str__(self) -> str:
        return f"{self.homonym.form}: {self.gloss}"


class Setup(Versioned):
    """Precontext plus the ambiguous sentence that contains the homonym."""

    homonym = models.ForeignKey(Homonym, on_delete=models.CASCADE, related_name="setups")
    precontext = models.TextField()
    sentence = models.TextField()

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["homonym", "precontext", "sentence"], name="unique_setup"
            )
        ]

    def __str__(self) -> str:
        return f"{self.homonym.form}: {self.sentence}"


class Story(Versioned):
    """A setup with one ending; ``ending == ""`` is the open-ended story."""

    setup = models.ForeignKey(Setup, on_delete=models.CASCADE, related_name="stories")
    ending = models.TextField(blank=True)

    class Meta:
        ordering = ["setup_id", "id"]
        verbose_name_plural = "stories"
        constraints = [
            models.UniqueConstraint(fields=["setup", "ending"], name="unique_story_per_ending")
        ]

    def __str__(self) -> str:
        return f"{self.setup} / {self.ending[:40] or '(no ending)'}"

    @property
    def has_ending(self) -> bool:
        return bool(self.ending)


class TextVersion(models.Model):
    """A text of a setup, story or sense other than its reference text (which the object
    itself holds, with its ``version``): an earlier reference text, or a study's own
    corrected version (``annotations.text_versions``). ``text`` holds the fields at
    ``version``. Ratings name the versions they were given on."""

    class Kind(models.TextChoices):
        SETUP = "setup", "Setup (precontext and sentence)"
        STORY = "story", "Story ending"
        SENSE = "sense", "Sense (gloss and example)"

    kind = models.CharField(max_length=10, choices=Kind.choices)
    object_id = models.PositiveIntegerField()
    version = models.PositiveIntegerField()
    text = models.JSONField()
    replaced_at = models.DateTimeField(auto_now_add=True)
    replaced_by = who()

    class Meta:
        ordering = ["kind", "object_id", "version"]
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "object_id", "version"], name="one_text_per_version"
            )
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.object_id} v{self.version}"


class SampleQuerySet(models.QuerySet):
    def with_related(self) -> SampleQuerySet:
        return self.select_related("story__setup__homonym", "sense", "split__dataset")

    def in_split(self, dataset: str, split: str) -> SampleQuerySet:
        return self.filter(split__dataset__name=dataset, split__name=split)

    def with_ending(self, has_ending: bool = True) -> SampleQuerySet:
        return self.exclude(story__ending="") if has_ending else self.filter(story__ending="")

    def with_stats(self, include_excluded: bool = False, *, sd: bool = True) -> SampleQuerySet:
        """Annotate ``n_ratings``, ``mean`` and ``sd`` (sample SD) from the valid ratings
        (with ``include_excluded``, excluded raters' too; never those of an earlier text).
        ``sd`` is PostgreSQL's ``stddev_samp``, which can differ in the last bit from the
        official SD: for display only, never to score. ``sd=False`` leaves it out, for a
        caller that sets the official one (``selectors.attach_official_sd``) instead."""
        valid = current_ratings("ratings__") if include_excluded else valid_ratings("ratings__")
        scale = valid & decided_ratings("ratings__")
        spread = {"sd": StdDev("ratings__score", filter=scale, sample=True)} if sd else {}
        return self.annotate(
            n_ratings=Count("ratings", filter=valid),
            mean=Avg("ratings__score", filter=scale),
            **spread,
            n_nonsensical=Count("ratings", filter=valid & Q(ratings__nonsensical=True)),
        )

    def in_dataset_order(self) -> SampleQuerySet:
        return self.order_by("split_id", "position")

    def search(self, text: str) -> SampleQuerySet:
        """Samples whose id (``12`` or ``dev/12``), homonym or any text (precontext,
        sentence, ending, sense) contains ``text``; every sample for an empty one."""
        text = text.strip()
        if not text:
            return self
        found = (
            Q(story__setup__homonym__form__icontains=text)
            | Q(story__setup__precontext__icontains=text)
            | Q(story__setup__sentence__icontains=text)
            | Q(story__ending__icontains=text)
            | Q(sense__gloss__icontains=text)
        )
        split, _, key = text.rpartition("/")
        found |= Q(dataset_id=key, split__name=split) if split else Q(dataset_id=text)
        return self.filter(found)

    def of_kind(self, kind: str) -> SampleQuerySet:
        return self.filter(split__dataset__task_kind=kind)

    def kinds(self) -> set[str]:
        """The task kinds among these samples (one query)."""
        rows = self.order_by().values_list("split__dataset__task_kind", flat=True).distinct()
        return set(rows)


class Sample(models.Model):
    """One story judged for one sense; ``dataset_id`` is the file's key ("0", "1", ...)."""

    split = models.ForeignKey(Split, on_delete=models.PROTECT, related_name="samples")
    story = models.ForeignKey(Story, on_delete=models.CASCADE, related_name="samples")
    sense = models.ForeignKey(
        Sense,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="samples",
        help_text="The judged sense (plausibility) or the gold sense (sense choice); empty "
        "for relatedness.",
    )
    item_set = models.CharField(
        max_length=64, blank=True, help_text="The source's test set (e.g. FOOL's set 1-4)."
    )
    dataset_id = models.CharField(max_length=32)
    sample_id = models.CharField(max_length=32, blank=True)
    position = models.PositiveIntegerField(help_text="Order of the sample in its source file.")

    objects = SampleQuerySet.as_manager()

    class Meta:
        ordering = ["split_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["split", "dataset_id"], name="unique_sample_id"),
            models.UniqueConstraint(fields=["story", "sense"], name="unique_story_sense"),
        ]
        indexes = [models.Index(fields=["split", "position"])]

    def __str__(self) -> str:
        return f"{self.split} #{self.dataset_id}"

    @property
    def task_kind(self) -> str:
        return self.split.dataset.task_kind


class RaterQuerySet(models.QuerySet):
    def excluded(self) -> RaterQuerySet:
        """Raters with an active exclusion: their ratings leave every aggregate."""
        active = RaterExclusion.objects.filter(rater=OuterRef("pk"), revoked_at__isnull=True)
        return self.filter(Exists(active))


class Rater(models.Model):
    """Who gave a rating. Imported files carry no identities, so each import position of a
    split ("the k-th rating of each sample") becomes one anonymous imported rater."""

    class Kind(models.TextChoices):
        IMPORTED = "imported", "Imported (anonymous)"
        PARTICIPANT = "participant", "Study participant"
        RESEARCHER = "researcher", "Researcher"

    kind = models.CharField(max_length=20, choices=Kind.choices)
    pseudonym = models.CharField(max_length=100, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = RaterQuerySet.as_manager()

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.pseudonym


class RaterExclusion(models.Model):
    """Takes a rater's ratings out of aggregates, with a reason; never deletes data.

    Revoking sets ``revoked_at``; the row stays as a record of the decision.
    """

    class Source(models.TextChoices):
        ATTENTION_CHECK = "attention_check", "Failed attention check"
        QUALITY = "quality", "Annotator quality review"
        MANUAL = "manual", "Researcher decision"

    rater = models.ForeignKey(Rater, on_delete=models.CASCADE, related_name="exclusions")
    source = models.CharField(max_length=20, choices=Source.choices)
    reason = models.TextField()
    created_by = who()
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_by = who(related_name="+")
    revoke_reason = models.TextField(blank=True, help_text="Why the rater was included again.")

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["rater"],
                condition=Q(revoked_at__isnull=True),
                name="one_active_exclusion_per_rater",
            )
        ]

    def __str__(self) -> str:
        return f"{self.rater} excluded ({self.source})"


class RatingQuerySet(models.QuerySet):
    """The valid-ratings rule lives here: a rating counts unless its rater is excluded or
    it was not given on the reference texts (``current``). A study's own figures use
    ``studies.shown_texts.valid_in_study`` (the texts the study shows)."""

    def valid(self) -> RatingQuerySet:
        """The ratings that count: not by an excluded rater, given on the current texts."""
        return self.filter(valid_ratings())

    def current(self) -> RatingQuerySet:
        """Ratings given on the sample's reference texts (a reference edit makes the older
        ones outdated, and a study's own version is not the reference: kept, shown as such,
        left out of the aggregates)."""
        return self.filter(current_ratings())

    def outdated(self) -> RatingQuerySet:
        return self.exclude(pk__in=self.current().values("pk"))


def valid_ratings(prefix: str = "") -> Q:
    """:meth:`RatingQuerySet.valid` as a ``Q`` for queries that reach ratings through a
    relation (``prefix="ratings__"`` from samples), e.g. in an aggregate's ``filter``."""
    return ~Q(**{f"{prefix}rater__in": Rater.objects.excluded()}) & current_ratings(prefix)


def decided_ratings(prefix: str = "") -> Q:
    """Ratings that are a point on their kind's scale: not the kind's "cannot decide" answer
    (``annotations.kinds``' ``undecided``, 0 of a use pair), which is kept and counted but left
    out of means and SDs (``prefix`` as in :func:`valid_ratings`)."""
    decided = Q()
    for value, record in KINDS.items():
        if record.undecided is not None:
            decided &= ~Q(**{f"{prefix}kind": value, f"{prefix}score": record.undecided})
    return decided


def current_ratings(prefix: str = "") -> Q:
    """:meth:`RatingQuerySet.current` as a ``Q`` (``prefix`` as in :func:`valid_ratings`;
    from samples, ``"ratings__"``, the sample is the query's own row)."""
    sample = "" if prefix == "ratings__" else f"{prefix}sample__"
    # OR-ed, so the join to a missing sense is an outer one (relatedness has none)
    same_sense = Q(**{f"{sample}sense__isnull": True}) | Q(
        **{f"{prefix}sense_version": F(f"{sample}sense__version")}
    )
    return same_sense & Q(
        **{
            f"{prefix}setup_version": F(f"{sample}story__setup__version"),
            f"{prefix}story_version": F(f"{sample}story__version"),
        }
    )


class Rating(models.Model):
    """One rater's judgment of a sample. ``kind`` is the sample's task kind, copied so the
    database can check ``score`` against the kind's range."""

    sample = models.ForeignKey(Sample, on_delete=models.CASCADE, related_name="ratings")
    rater = models.ForeignKey(Rater, on_delete=models.PROTECT, related_name="ratings")
    kind = models.CharField(
        max_length=20,
        choices=TaskKind.choices,
        default=TaskKind.PLAUSIBILITY,
        db_default=TaskKind.PLAUSIBILITY,
    )
    score = models.PositiveSmallIntegerField()
    nonsensical = models.BooleanField(default=False)
    comment = models.TextField(blank=True)
    position = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="Order within the sample for imported ratings; empty for study ratings.",
    )
    started_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    setup_version = models.PositiveIntegerField(default=1, db_default=1)
    story_version = models.PositiveIntegerField(default=1, db_default=1)
    sense_version = models.PositiveIntegerField(
        default=1, db_default=1, help_text="1 for a sample without a sense."
    )
    sentence_order = models.CharField(
        max_length=2,
        blank=True,
        default="",
        db_default="",
        choices=[("", "not a pair"), ("12", "sentence 1 first"), ("21", "sentence 2 first")],
        help_text="Which of a pair's two sentences the rater saw first (relatedness studies; "
        "studies.counterbalance); empty for other kinds and imported ratings.",
    )

    objects = RatingQuerySet.as_manager()

    class Meta:
        ordering = ["sample_id", "position", "id"]
        constraints = [
            models.CheckConstraint(
                condition=_score_in_range_condition(), name="rating_score_in_range"
            ),
            models.UniqueConstraint(fields=["rater", "sample"], name="one_rating_per_rater"),
            models.UniqueConstraint(fields=["sample", "position"], name="unique_rating_position"),
            models.CheckConstraint(
                condition=Q(sentence_order__in=["", "12", "21"]), name="rating_sentence_order"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.rater} rated {self.sample}: {self.score}"


# Models of this app kept in their own modules (this one stays under 500 lines): the data
# versions, and the labels of relatedness and sense-choice samples; imported so that they
# register and ``annotations.models`` names them.
from .data_versions import DataVersion  # noqa: E402, F401
from .kind_models import SenseCandidate, SentencePair  # noqa: E402, F401
