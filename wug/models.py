"""Word Usage Graphs (DURel / WUG): words, their uses, senses and judgments.

A word's files are kept as they were read: each row's raw values by column (``fields``),
the files' column orders and line endings (``Word.layout``), so that an export gives the same
bytes. The typed columns beside them (spans, grouping, score) are what the pages and the
graph read. A judgment joins a use to a use (usage-usage graph) or to a sense (usage-sense
graph); its score is 1-4, or 0 for "cannot decide".
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from wug.texts import UseParts, use_parts


class GraphType(models.TextChoices):
    USAGE_USAGE = "uug", "Usage-usage graph"
    USAGE_SENSE = "usg", "Usage-sense graph"


class Word(models.Model):
    name = models.CharField(max_length=200, unique=True, help_text="The word folder's name.")
    lemma = models.CharField(max_length=200)
    graph_type = models.CharField(max_length=3, choices=GraphType.choices)
    layout = models.JSONField(
        default=dict, help_text="Per file: its columns in order and its line ending."
    )
    digest = models.CharField(max_length=64, help_text="SHA-256 of the files' content.")
    imported_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Use(models.Model):
    word = models.ForeignKey(Word, on_delete=models.CASCADE, related_name="uses")
    position = models.PositiveIntegerField(help_text="Row order in uses.csv.")
    identifier = models.CharField(max_length=300)
    grouping = models.CharField(max_length=100, blank=True)
    date = models.CharField(max_length=100, blank=True)
    context = models.TextField()
    target_start = models.PositiveIntegerField()
    target_end = models.PositiveIntegerField()
    sentence_start = models.PositiveIntegerField(null=True, blank=True)
    sentence_end = models.PositiveIntegerField(null=True, blank=True)
    fields = models.JSONField(help_text="The row's raw values by column, extra columns too.")

    class Meta:
        ordering = ["word_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["word", "identifier"], name="wug_unique_use"),
            models.UniqueConstraint(fields=["word", "position"], name="wug_unique_use_position"),
            models.CheckConstraint(
                condition=Q(target_start__lte=models.F("target_end")), name="wug_target_span"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.word.name}/{self.identifier}"

    @property
    def parts(self) -> UseParts:
        """The context split for display: background, sentence, marked target."""
        return use_parts(
            self.context,
            (self.target_start, self.target_end),
            (self.sentence_start, self.sentence_end),
        )


class WordSense(models.Model):
    word = models.ForeignKey(Word, on_delete=models.CASCADE, related_name="senses")
    position = models.PositiveIntegerField()
    identifier = models.CharField(max_length=300)
    description = models.TextField(blank=True)
    fields = models.JSONField()

    class Meta:
        ordering = ["word_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["word", "identifier"], name="wug_unique_sense"),
        ]

    def __str__(self) -> str:
        return f"{self.word.name}/{self.identifier}"


class Judgment(models.Model):
    word = models.ForeignKey(Word, on_delete=models.CASCADE, related_name="judgments")
    position = models.PositiveIntegerField(help_text="Row order in judgments.csv.")
    use1 = models.ForeignKey(Use, on_delete=models.CASCADE, related_name="+")
    use2 = models.ForeignKey(Use, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    sense = models.ForeignKey(
        WordSense, null=True, blank=True, on_delete=models.CASCADE, related_name="judgments"
    )
    annotator = models.CharField(max_length=200)
    score = models.FloatField(help_text="1-4 (DURel); 0 = cannot decide.")
    comment = models.TextField(blank=True)
    round = models.PositiveIntegerField(null=True, blank=True)
    fields = models.JSONField()

    class Meta:
        ordering = ["word_id", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["word", "position"], name="wug_unique_judgment_position"
            ),
            models.CheckConstraint(
                condition=Q(score__gte=0, score__lte=4), name="wug_judgment_in_range"
            ),
            models.CheckConstraint(
                condition=Q(use2__isnull=False, sense__isnull=True)
                | Q(use2__isnull=True, sense__isnull=False),
                name="wug_judgment_joins_a_use_or_a_sense",
            ),
        ]

    def __str__(self) -> str:
        other = self.use2 or self.sense
        return f"{self.use1} ~ {other}: {self.score}"


class Clustering(models.Model):
    """A clustering of a word's uses, kept until the judgments change (``fingerprint``)."""

    word = models.ForeignKey(Word, on_delete=models.CASCADE, related_name="clusterings")
    threshold = models.FloatField()
    seed = models.PositiveIntegerField()
    fingerprint = models.CharField(max_length=64, help_text="Of the judgments it was made from.")
    labels = models.JSONField(help_text="Cluster per use identifier (0 = the largest).")
    loss = models.FloatField()
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["word", "threshold", "seed"], name="wug_one_clustering_per_parameters"
            )
        ]

    def __str__(self) -> str:
        return f"{self.word} (loss {self.loss})"


class ModelAnnotation(models.Model):
    """A computational annotator's pass over a word's judged use pairs (a background run:
    queued, running, done or failed; resumable, as judgments already made are kept)."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    word = models.ForeignKey(Word, on_delete=models.CASCADE, related_name="model_annotations")
    backend = models.CharField(max_length=64)
    model_version = models.CharField(max_length=300, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    total = models.PositiveIntegerField(default=0)
    calibration_words = models.JSONField(
        default=list, help_text="The words whose human judgments fitted the calibration."
    )
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.backend} on {self.word} ({self.status})"


class ModelJudgment(models.Model):
    annotation = models.ForeignKey(
        ModelAnnotation, on_delete=models.CASCADE, related_name="judgments"
    )
    use1 = models.ForeignKey(Use, on_delete=models.CASCADE, related_name="+")
    use2 = models.ForeignKey(Use, on_delete=models.CASCADE, related_name="+")
    score = models.FloatField(help_text="On the DURel scale, 1-4.")
    similarity = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["annotation", "use1", "use2"], name="wug_one_model_judgment_per_pair"
            ),
            models.CheckConstraint(
                condition=Q(score__gte=1, score__lte=4), name="wug_model_judgment_in_range"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.use1} ~ {self.use2}: {self.score:.2f}"


class CrowdStudy(models.Model):
    """A use-pair study on the crowd machinery (``wug.crowd``): a ``studies.Study`` of task
    kind ``use_pair`` whose samples are use pairs of ``words``, added round by round as
    DWUG was built (``wug.sampling``)."""

    study = models.OneToOneField("studies.Study", on_delete=models.CASCADE, related_name="+")
    words = models.ManyToManyField(Word, related_name="crowd_studies")
    pairs_per_round = models.PositiveIntegerField(
        default=30, help_text="Use pairs per word in each round."
    )
    pairs_per_participant = models.PositiveIntegerField(
        default=20, help_text="At most; a round with fewer pairs gives each participant all."
    )
    seed = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return str(self.study)


class PairRound(models.Model):
    """One round of a crowd study: a batch of use pairs (and so of slots)."""

    crowd_study = models.ForeignKey(CrowdStudy, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["crowd_study_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["crowd_study", "number"], name="wug_one_round_number")
        ]

    def __str__(self) -> str:
        return f"{self.crowd_study} round {self.number}"


class UsePair(models.Model):
    """A use pair served as a sample (task kind ``use_pair``): wug's side of the pair <->
    sample mapping. A pair is one sample (and one setup) at most, so the slots' one setup
    per participant and the ratings' one per rater and sample keep anyone from judging a
    pair twice. ``use1`` is the use with the lower id, so (a, b) and (b, a) are one row."""

    sample = models.OneToOneField(
        "annotations.Sample", on_delete=models.CASCADE, related_name="use_pair"
    )
    word = models.ForeignKey(Word, on_delete=models.CASCADE, related_name="pairs")
    use1 = models.ForeignKey(Use, on_delete=models.CASCADE, related_name="+")
    use2 = models.ForeignKey(Use, on_delete=models.CASCADE, related_name="+")
    round = models.ForeignKey(PairRound, on_delete=models.CASCADE, related_name="pairs")

    class Meta:
        ordering = ["round_id", "id"]
        constraints = [
            models.UniqueConstraint(fields=["use1", "use2"], name="wug_one_sample_per_pair"),
            models.CheckConstraint(
                condition=Q(use1__lt=models.F("use2")), name="wug_pair_uses_in_order"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.use1} ~ {self.use2}"


class GoldPair(models.Model):
    """A use pair with a known answer, asked as an attention check (the check question's
    ``expected``); ``use1 == use2`` is the identity pair (always 4, identical)."""

    question = models.OneToOneField(
        "studies.CheckQuestion", on_delete=models.CASCADE, related_name="+"
    )
    use1 = models.ForeignKey(Use, on_delete=models.CASCADE, related_name="+")
    use2 = models.ForeignKey(Use, on_delete=models.CASCADE, related_name="+")

    def __str__(self) -> str:
        return f"gold {self.use1} ~ {self.use2}"
