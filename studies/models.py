"""Crowd studies: Prolific participants rating AmbiStory samples."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone

from annotations.kinds import check_passes
from annotations.models import SENSE_CANDIDATES_MAX, TaskKind, TextVersion

from . import activities
from .bot_checks import MAX_CHECKS as BOT_CHECKS_MAX
from .querysets import ParticipantQuerySet

PROLIFIC_PID_PATTERN = r"^[0-9a-f]{24}$"
TIME_LIMIT_MAX_MINUTES = 7 * 24 * 60  # a week: a batch is never held longer


def validate_regex(value: str) -> None:
    try:
        re.compile(value)
    except re.error as exc:
        raise ValidationError(f"Not a valid regular expression: {exc}") from None


class Study(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        OPEN = "open", "Open"
        PAUSED = "paused", "Paused"
        CLOSED = "closed", "Closed"

    class Activity(models.TextChoices):
        """What participants do: rate samples (what they judge is ``task_kind``), or write
        for a new AmbiStory (the ``writing`` app)."""

        RATING = "rating", "Plausibility rating"
        SENTENCES = "sentences", "Ambiguous-sentence writing"
        ENDINGS = "endings", "Ending writing"

    class AdaptiveRule(models.TextChoices):
        """Which samples adaptive allocation grows first (``studies.adaptive.grow``)."""

        WIDEST = "widest", "Widest interval first"
        VARIANCE = "variance", "Variance-optimal (ratings in proportion to the shrunk SD)"

    slug = models.SlugField(max_length=64, unique=True)
    title = models.CharField(max_length=200)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    task_kind = models.CharField(
        max_length=20,
        choices=TaskKind.choices,
        default=TaskKind.PLAUSIBILITY,
        help_text="What participants judge; every sample of the study has this kind.",
    )
    activity = models.CharField(
        max_length=20,
        choices=Activity.choices,
        default=Activity.RATING,
        help_text="Rate samples, or write sentences or endings for a new AmbiStory.",
    )
    samples = models.ManyToManyField(
        "annotations.Sample", related_name="studies", blank=True, through="StudySample"
    )
    ratings_per_sample = models.PositiveSmallIntegerField(
        default=5, help_text="With adaptive allocation: the minimum every sample gets."
    )
    adaptive = models.BooleanField(
        default=False,
        help_text="Start every sample at 'ratings per sample', then give more ratings to the "
        "samples whose mean is least precise (the study page states the rule).",
    )
    adaptive_rule = models.CharField(
        max_length=10,
        choices=AdaptiveRule.choices,
        default=AdaptiveRule.WIDEST,
        help_text="Adaptive allocation: which samples get more ratings first.",
    )
    max_ratings_per_sample = models.PositiveSmallIntegerField(
        default=9, help_text="Adaptive allocation: no sample gets more ratings than this."
    )
    target_width = models.FloatField(
        default=1.0,
        validators=[MinValueValidator(0.0)],
        help_text="Adaptive allocation: a sample whose mean's 95% interval is at most this wide "
        "(in scale points) gets no more ratings.",
    )
    rating_budget = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="Adaptive allocation: at most this many ratings in all; empty = samples x "
        "the maximum.",
    )
    samples_per_participant = models.PositiveSmallIntegerField(default=30)
    one_item_per_word = models.BooleanField(
        default=False,
        help_text="A batch never holds two items of one word (RAW-C's design; relatedness "
        "studies start with it on). Fixed once the study is opened.",
    )
    attention_checks_per_batch = models.PositiveSmallIntegerField(default=1)
    bot_checks = models.PositiveSmallIntegerField(
        default=0,
        validators=[MaxValueValidator(BOT_CHECKS_MAX)],
        help_text="Questions after consent that filter out bots (RAW-C asked 2); a wrong answer "
        "screens the participant out (studies.bot_checks).",
    )
    attention_min_correct = models.PositiveSmallIntegerField(
        default=100,
        validators=[MaxValueValidator(100)],
        help_text="Percent: a participant with fewer of their attention checks right is "
        "excluded (100: one wrong answer excludes; RAW-C: 50).",
    )
    guidelines = models.TextField(blank=True)
    completion_code = models.CharField(max_length=64)
    screenout_code = models.CharField(max_length=64)
    time_limit_minutes = models.PositiveIntegerField(
        default=60,
        validators=[MaxValueValidator(TIME_LIMIT_MAX_MINUTES)],
        help_text=f"At most {TIME_LIMIT_MAX_MINUTES} minutes (a week).",
    )
    qualification_minutes = models.PositiveSmallIntegerField(
        default=10,
        help_text="How long a batch is held between consent and the qualification test.",
    )
    questions_per_participant = models.PositiveSmallIntegerField(
        default=4,
        help_text="Qualification questions each participant answers, drawn from the study's "
        "qualification questions (at most one per story); 0 = one from every story.",
    )
    max_unqualified = models.PositiveIntegerField(
        default=100,
        help_text="At most this many participants may hold a batch before qualifying.",
    )
    pid_pattern = models.CharField(
        max_length=200,
        default=PROLIFIC_PID_PATTERN,
        validators=[validate_regex],
        help_text="Regular expression a participant ID must match (default: Prolific's).",
    )
    prolific_study_id = models.CharField(
        max_length=64,
        blank=True,
        help_text="When set, arrivals whose STUDY_ID differs are refused.",
    )
    prolific_completion_url = models.URLField(
        default="https://app.prolific.com/submissions/complete?cc={code}",
        help_text="{code} is replaced by the completion or screen-out code.",
    )
    contact = models.CharField(
        max_length=200,
        blank=True,
        help_text="How participants reach the researchers (e.g. an e-mail address); shown on "
        "the welcome page.",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "studies"
        constraints = [
            models.CheckConstraint(
                condition=Q(time_limit_minutes__lte=TIME_LIMIT_MAX_MINUTES),
                name="study_time_limit_at_most_a_week",
            ),
            models.CheckConstraint(
                condition=Q(adaptive_rule__in=["widest", "variance"]),
                name="study_adaptive_rule_known",
            ),
            models.CheckConstraint(
                condition=Q(bot_checks__lte=BOT_CHECKS_MAX), name="study_bot_checks_in_pool"
            ),
            models.CheckConstraint(
                condition=Q(attention_min_correct__lte=100),
                name="study_attention_min_correct_percent",
            ),
        ]

    def __str__(self) -> str:
        return self.title

    @property
    def activity_def(self) -> activities.Activity:
        """The registered activity of this study (its pages, answers and item nouns)."""
        return activities.get(self.activity)

    @property
    def sample_unit(self) -> str:
        """The lookup from a study sample to the unit a batch or a fixed list holds one
        sample of at most: the setup, or the word in a one-item-per-word study (RAW-C)."""
        if self.one_item_per_word:
            return "sample__story__setup__homonym_id"
        return "sample__story__setup_id"

    def budget(self, n_samples: int) -> int:
        """How many ratings adaptive allocation may allot in all (never-void places)."""
        cap = n_samples * self.max_ratings_per_sample
        return cap if self.rating_budget is None else min(self.rating_budget, cap)

    def completion_url(self, code: str) -> str:
        return self.prolific_completion_url.replace("{code}", code)

    def hold_minutes(self, qualified: bool) -> int:
        """How long a participant's batch is held from consent: briefly until the
        qualification test is passed, then for the time limit. Bounded by
        ``TIME_LIMIT_MAX_MINUTES`` even for a row written before the check constraint, so
        no deadline computation can overflow."""
        limit = min(self.time_limit_minutes, TIME_LIMIT_MAX_MINUTES)
        if qualified:
            return limit
        return min(self.qualification_minutes, limit)


class StudySample(models.Model):
    study = models.ForeignKey(Study, on_delete=models.CASCADE)
    sample = models.ForeignKey("annotations.Sample", on_delete=models.PROTECT)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["study", "sample"], name="unique_study_sample")
        ]

    def __str__(self) -> str:
        return f"{self.study} / {self.sample}"


class StudyText(models.Model):
    """The version of a setup, story or sense text that a study shows, when it is not the
    reference text (the object's own fields and ``version``): a correction made for a
    study is this study's own version (its text in ``annotations.TextVersion``), so the
    imported ratings of the reference text keep counting for the benchmark."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="texts")
    kind = models.CharField(max_length=10, choices=TextVersion.Kind.choices)
    object_id = models.PositiveIntegerField()
    version = models.PositiveIntegerField()
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["study_id", "kind", "object_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["study", "kind", "object_id"], name="one_text_version_per_study"
            )
        ]

    def __str__(self) -> str:
        return f"{self.study} shows {self.kind} {self.object_id} v{self.version}"


class Participant(models.Model):
    """One Prolific participant in one study; ratings go through ``rater``."""

    class Status(models.TextChoices):
        STARTED = "started", "Started"
        QUALIFIED = "qualified", "Qualified"
        SCREENED_OUT = "screened_out", "Screened out"
        FINISHED = "finished", "Finished"
        TIMED_OUT = "timed_out", "Timed out"

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="participants")
    rater = models.OneToOneField(
        "annotations.Rater", on_delete=models.PROTECT, related_name="participant"
    )
    prolific_pid = models.CharField(max_length=64)
    prolific_study_id = models.CharField(max_length=64, blank=True)
    prolific_session_id = models.CharField(max_length=64, blank=True)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.STARTED)
    started_at = models.DateTimeField(auto_now_add=True)
    qualified_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    qualification_answers = models.JSONField(default=dict, blank=True)
    qualification_draw = models.JSONField(
        default=list,
        blank=True,
        help_text="The ids of the qualification questions drawn for this participant, in the "
        "order shown (studies.qualification).",
    )
    qualification_late = models.BooleanField(
        default=False,
        help_text="The qualification answers came after the brief hold; kept and graded "
        "(studies.late).",
    )
    resume_hash = models.CharField(
        max_length=64, blank=True, help_text="SHA-256 of the browser's resume token."
    )
    # The holds of docs/studies.md "Holds": who asked (``ambisite.ratelimit.client_key``),
    # until when an unqualified batch is held (shorter for a client holding many), and when
    # the hold lapses without a heartbeat from the page (None: no page script has called).
    client = models.CharField(max_length=64, blank=True)
    held_until = models.DateTimeField(null=True, blank=True)
    lapse_at = models.DateTimeField(null=True, blank=True)
    # A researcher's PID reset (or a lapsed unqualified hold) moves the PID here, so the
    # person it belongs to can arrive with it again (``studies.remedies``).
    pid_before_reset = models.CharField(max_length=64, blank=True)

    objects = ParticipantQuerySet.as_manager()

    class Meta:
        ordering = ["-started_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["study", "prolific_pid"],
                condition=~Q(prolific_pid=""),
                name="one_pid_per_study",
            ),
            models.UniqueConstraint(
                fields=["resume_hash"], condition=~Q(resume_hash=""), name="unique_resume_hash"
            ),
        ]
        indexes = [
            models.Index(fields=["study", "status", "started_at"]),
            models.Index(fields=["study", "client", "status"]),
        ]

    def __str__(self) -> str:
        return f"{self.rater} in {self.study}"

    ACTIVE = (Status.STARTED, Status.QUALIFIED)

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE

    @property
    def minutes_taken(self) -> float | None:
        """Minutes from consent to the end (finished or screened out); None while open."""
        if self.finished_at is None:
            return None
        return (self.finished_at - self.started_at).total_seconds() / 60

    def deadline(self, study: Study | None = None) -> datetime:
        """Until when the batch is held: ``Study.hold_minutes`` from consent, and before the
        qualification test no later than ``held_until`` and ``lapse_at``."""
        study = study or self.study
        qualified = self.status != self.Status.STARTED
        end = self.started_at + timedelta(minutes=study.hold_minutes(qualified))
        if not qualified:  # the unqualified hold may be shorter (studies.holds)
            end = min([t for t in (self.held_until, self.lapse_at) if t is not None] + [end])
        return end

    def is_late(self, now: datetime | None = None) -> bool:
        """Still active past :meth:`deadline`: the participant rule every page and service
        asks (``participants_expire`` applies the same rule in SQL to time them out)."""
        return self.is_active and self.deadline() < (now or timezone.now())


class CheckQuestion(models.Model):
    """A story with a known answer: a qualification question and/or an attention check.

    A check passes when ``|answer - expected| <= tolerance`` (graded checks: expected 1 with
    tolerance 1 accepts 1-2). ``expected`` is on the study's scale: 1-5 for plausibility,
    0-4 for relatedness (a catch trial), a candidate index for sense choice.
    """

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="check_questions")
    order = models.PositiveSmallIntegerField(default=0)
    homonym = models.CharField(max_length=100)
    precontext = models.TextField()
    sentence = models.TextField()
    ending = models.TextField(blank=True)
    meaning = models.TextField()
    example_sentence = models.TextField(blank=True)
    other_meaning = models.TextField(
        blank=True,
        help_text="Writing studies' variant: pick the more plausible of two meanings; "
        "'expected' is then 1 (meaning) or 2 (other meaning).",
    )
    expected = models.PositiveSmallIntegerField()
    tolerance = models.PositiveSmallIntegerField(default=0)
    in_qualification = models.BooleanField(default=True)
    as_attention_check = models.BooleanField(default=True)

    class Meta:
        ordering = ["study_id", "order", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(expected__lte=SENSE_CANDIDATES_MAX - 1),
                name="check_expected_on_a_scale",
            ),
            models.CheckConstraint(condition=Q(tolerance__lte=4), name="check_tolerance_0_4"),
        ]

    def __str__(self) -> str:
        return f"{self.homonym}: {self.meaning} (expect {self.expected}±{self.tolerance})"

    def accepts(self, score: int, kind: str | None = None) -> bool:
        """The rule of ``annotations.kinds.check_passes`` (``kind``: the study's task kind;
        a "cannot decide" answer never passes a check expecting a decision)."""
        return check_passes(kind, expected=self.expected, tolerance=self.tolerance, score=score)


class Slot(models.Model):
    """The k-th wanted rating of one study sample. Slots are created when the study opens;
    a participant's batch is the set of slots they reserved. ``setup`` is copied from the
    sample so the database itself can refuse two samples of one setup per participant, and
    in a one-item-per-word study ``word`` two samples of one word."""

    class Status(models.TextChoices):
        FREE = "free", "Free"
        RESERVED = "reserved", "Reserved"
        DONE = "done", "Rated"
        VOID = "void", "Void (rater excluded; replaced)"
        OUTDATED = "outdated", "Outdated (rated on an edited text; replaced)"

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="slots")
    sample = models.ForeignKey("annotations.Sample", on_delete=models.PROTECT, related_name="+")
    setup = models.ForeignKey("annotations.Setup", on_delete=models.PROTECT, related_name="+")
    # the sample's word, only in a one-item-per-word study (else NULL): the batch's unit then
    word = models.ForeignKey(
        "annotations.Homonym", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    number = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.FREE)
    participant = models.ForeignKey(
        Participant, null=True, blank=True, on_delete=models.PROTECT, related_name="slots"
    )
    position = models.PositiveSmallIntegerField(null=True, blank=True)
    reserved_at = models.DateTimeField(null=True, blank=True)
    done_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["study_id", "sample_id", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["study", "sample", "number"], name="one_slot_per_sample_number"
            ),
            models.UniqueConstraint(
                fields=["participant", "setup"],
                condition=Q(participant__isnull=False),
                name="one_setup_per_participant",
            ),
            models.UniqueConstraint(
                fields=["participant", "word"],
                condition=Q(participant__isnull=False) & Q(word__isnull=False),
                name="one_word_per_participant",
            ),
            models.UniqueConstraint(
                fields=["participant", "position"],
                condition=Q(participant__isnull=False),
                name="one_slot_per_batch_position",
            ),
            models.CheckConstraint(
                condition=(Q(status="free") & Q(participant__isnull=True))
                | (~Q(status="free") & Q(participant__isnull=False)),
                name="slot_held_iff_not_free",
            ),
        ]
        indexes = [models.Index(fields=["study", "status", "number"])]

    def __str__(self) -> str:
        return f"{self.study} / sample {self.sample_id} #{self.number} ({self.status})"


class AttentionAnswer(models.Model):
    """An attention-check item in a participant's batch and its answer (not a Rating: the
    check stories are not AmbiStory samples). ``passed`` grades the first answer."""

    participant = models.ForeignKey(
        Participant, on_delete=models.CASCADE, related_name="attention_answers"
    )
    question = models.ForeignKey(CheckQuestion, on_delete=models.PROTECT, related_name="+")
    position = models.PositiveSmallIntegerField()
    score = models.PositiveSmallIntegerField(null=True, blank=True)
    nonsensical = models.BooleanField(default=False)
    comment = models.TextField(blank=True)
    passed = models.BooleanField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["participant_id", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["participant", "position"], name="one_check_per_batch_position"
            ),
            models.UniqueConstraint(
                fields=["participant", "question"], name="one_answer_per_check"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.participant} check {self.question_id}: {self.score}"


# Remedy and the list design's tables live in their own modules (this one stays under 500
# lines); imported here so that they register.
from .list_models import ListDesign, ListSlot, StudyList, StudyListItem  # noqa: E402, F401
from .remedy_models import Remedy  # noqa: E402, F401
