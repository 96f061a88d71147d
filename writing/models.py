"""Writing a new AmbiStory (paper section 3, Appendix A.2.1, A.2.2, B.1, B.2).

A pool of sense pairs (a homonym and two of its senses); participants of a sentence-writing
study write ambiguous sentences for pairs they are shown (``Draw``); a researcher reviews
them and has an LLM write the precontext; an accepted sentence with an accepted precontext
becomes an ``annotations.Setup`` (``WrittenSetup`` keeps the provenance). Participants of an
ending-writing study write one ending per (setup, sense) slot; accepted endings become
``annotations.Story`` rows. Nothing a writer submits is deleted or overwritten: review
decisions edit a copy (``edited_text``) and are logged in ``ReviewDecision``.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from ambisite.fields import who


class Created(models.Model):
    """Who made a row and when."""

    created_by = who(related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        abstract = True


class SensePair(models.Model):
    """One entry of the homonym pool: a word form and two of its senses."""

    homonym = models.ForeignKey("annotations.Homonym", on_delete=models.PROTECT, related_name="+")
    sense_a = models.ForeignKey("annotations.Sense", on_delete=models.PROTECT, related_name="+")
    sense_b = models.ForeignKey("annotations.Sense", on_delete=models.PROTECT, related_name="+")
    pos_a = models.CharField("part of speech A", max_length=20, blank=True)
    pos_b = models.CharField("part of speech B", max_length=20, blank=True)
    excluded = models.BooleanField(
        default=False,
        help_text="Flagged out of the pool (e.g. senses of different parts "
        "of speech); never drawn.",
    )
    exclusion_reason = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["homonym__form", "id"]
        constraints = [
            models.UniqueConstraint(fields=["sense_a", "sense_b"], name="unique_sense_pair"),
            models.CheckConstraint(
                condition=~Q(sense_a=models.F("sense_b")), name="sense_pair_two_senses"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.homonym.form}: {self.sense_a.gloss} / {self.sense_b.gloss}"

    @property
    def differs_in_pos(self) -> bool:
        return bool(self.pos_a and self.pos_b and self.pos_a != self.pos_b)


class Draw(models.Model):
    """A pool entry shown to a sentence writer. "A different word, please" closes it as
    skipped; a valid sentence closes it as written. ``draft`` keeps the last refused text,
    so a reload shows it again."""

    class Status(models.TextChoices):
        OPEN = "open", "Shown"
        SKIPPED = "skipped", "Skipped (a different word)"
        WRITTEN = "written", "Written"

    participant = models.ForeignKey(
        "studies.Participant", on_delete=models.CASCADE, related_name="draws"
    )
    pair = models.ForeignKey(SensePair, on_delete=models.PROTECT, related_name="draws")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    draft = models.TextField(blank=True)
    drawn_at = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["participant_id", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["participant"], condition=Q(status="open"), name="one_open_draw"
            )
        ]

    def __str__(self) -> str:
        return f"{self.participant_id}: {self.pair} ({self.status})"


class Reviewed(models.Model):
    """A text a writer submitted and its review. ``text`` is never changed; an edit goes to
    ``edited_text`` and every decision is logged in ``ReviewDecision``."""

    class Decision(models.TextChoices):
        PENDING = "pending", "Not reviewed"
        ACCEPTED = "accepted", "Accepted"
        REJECTED = "rejected", "Rejected"

    text = models.TextField()
    comment = models.TextField(blank=True)
    late = models.BooleanField(
        default=False,
        help_text="Sent after the study's time limit (the page sends what is typed when its "
        "clock reaches zero); kept for review (studies.late).",
    )
    decision = models.CharField(max_length=10, choices=Decision.choices, default=Decision.PENDING)
    edited_text = models.TextField(blank=True)
    reason = models.TextField(blank=True)
    reviewed_by = who(related_name="+")
    reviewed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        abstract = True

    @property
    def final_text(self) -> str:
        return self.edited_text or self.text


class Sentence(Reviewed):
    """An ambiguous sentence written for a drawn sense pair (Figure 2)."""

    participant = models.ForeignKey(
        "studies.Participant", on_delete=models.PROTECT, related_name="sentences"
    )
    draw = models.OneToOneField(Draw, on_delete=models.PROTECT, related_name="sentence")
    pair = models.ForeignKey(SensePair, on_delete=models.PROTECT, related_name="sentences")

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.final_text


class SuggestionStatus(models.TextChoices):
    """Where an LLM's suggestion a researcher decides on stands (a clean-up, an example)."""

    QUEUED = "queued", "Queued"
    SUGGESTED = "suggested", "Suggested"
    ACCEPTED = "accepted", "Accepted"
    REJECTED = "rejected", "Rejected"
    FAILED = "failed", "Failed"


class LLMRequest(Created):
    """What a researcher asked an LLM to write (a precontext, a clean-up): the operator's
    endpoint and the model asked, who asked and when, and why it failed if it did."""

    endpoint = models.CharField(max_length=50, blank=True)
    model = models.CharField(max_length=200, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        abstract = True


class Precontext(LLMRequest):
    """A version of the three sentences before an ambiguous sentence: generated by an LLM
    with the B.2 prompt (``prompt_version``), or written/edited by a researcher."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    class Source(models.TextChoices):
        LLM = "llm", "Generated"
        RESEARCHER = "researcher", "Written by a researcher"

    sentence = models.ForeignKey(Sentence, on_delete=models.CASCADE, related_name="precontexts")
    source = models.CharField(max_length=12, choices=Source.choices, default=Source.LLM)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    text = models.TextField(blank=True)
    prompt_version = models.CharField(max_length=100, blank=True)
    served_model = models.CharField(max_length=200, blank=True)
    based_on = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["sentence_id", "-id"]

    def __str__(self) -> str:
        return self.text[:60] or f"({self.get_status_display()})"


class SenseExample(LLMRequest):
    """An example sentence for a sense, asked of an LLM (the paper showed writers "two
    example sentences, generated with GPT-4o", section 3.2) with a versioned prompt that
    names the pair's other sense; a researcher accepts it (optionally edited: then it is the
    sense's ``example_sentence``) or rejects it."""

    Status = SuggestionStatus

    sense = models.ForeignKey("annotations.Sense", on_delete=models.PROTECT, related_name="+")
    pair = models.ForeignKey(SensePair, on_delete=models.PROTECT, related_name="examples")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    prompt_version = models.CharField(max_length=100)
    text = models.TextField(blank=True)
    served_model = models.CharField(max_length=200, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    accepted_text = models.TextField(blank=True)
    decided_by = who(related_name="+")
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["pair_id", "-id"]

    def __str__(self) -> str:
        return self.text[:60] or f"({self.get_status_display()})"


class WrittenSetup(Created):
    """Provenance of a setup made here: which sentence (and so which writer) and which
    precontext version (and so which prompt, endpoint and model)."""

    setup = models.OneToOneField(
        "annotations.Setup", on_delete=models.PROTECT, related_name="written"
    )
    sentence = models.OneToOneField(Sentence, on_delete=models.PROTECT, related_name="written")
    precontext = models.ForeignKey(Precontext, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return str(self.setup)


class EndingSlot(models.Model):
    """One wanted ending in an ending-writing study: a setup and the sense the ending must
    make more plausible. A participant holds it from their first visit of the writing page;
    a slot whose holder timed out or was screened out without writing is free again. A
    writer gets slots of different setups while there are enough (the paper showed each
    story's two senses to two writers); only a study with fewer setups than a batch gives
    one writer both senses of a setup."""

    study = models.ForeignKey(
        "studies.Study", on_delete=models.CASCADE, related_name="ending_slots"
    )
    written = models.ForeignKey(WrittenSetup, on_delete=models.PROTECT, related_name="slots")
    sense = models.ForeignKey("annotations.Sense", on_delete=models.PROTECT, related_name="+")
    participant = models.ForeignKey(
        "studies.Participant",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="ending_slots",
    )
    position = models.PositiveSmallIntegerField(null=True, blank=True)
    draft = models.TextField(blank=True)
    draft_comment = models.TextField(blank=True)
    reserved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["study_id", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["study", "written", "sense"], name="one_ending_slot_per_sense"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.written} / {self.sense.gloss}"


class Ending(Reviewed):
    """An ending written for a slot (Figure 3); ``story`` is the story made when accepted.
    ``sense`` is the sense it is the ending for: the slot's (the one the writer was shown)
    unless a reviewer assigned it to the pair's other sense (``SenseSwap``)."""

    slot = models.ForeignKey(EndingSlot, on_delete=models.PROTECT, related_name="endings")
    sense = models.ForeignKey("annotations.Sense", on_delete=models.PROTECT, related_name="+")
    participant = models.ForeignKey(
        "studies.Participant", on_delete=models.PROTECT, related_name="endings"
    )
    story = models.OneToOneField(
        "annotations.Story",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="written_ending",
    )

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["participant", "slot"], name="one_ending_per_writer")
        ]

    def __str__(self) -> str:
        return self.final_text


class EndingEdit(models.Model):
    """A writer's change of their own ending after going Back to it (Figure 3's Back
    button): the text and comment it replaced, so nothing a writer sent is lost. The ending
    holds the new text; ``late`` says the change was sent after the time limit."""

    ending = models.ForeignKey(Ending, on_delete=models.CASCADE, related_name="edits")
    text_before = models.TextField()
    comment_before = models.TextField(blank=True)
    late = models.BooleanField(default=False)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["ending_id", "id"]

    def __str__(self) -> str:
        return f"{self.text_before[:40]} (changed {self.at:%Y-%m-%d %H:%M})"


class SenseSwap(models.Model):
    """A reviewer's change of the senses a written text is assigned to, with who and when:
    a sentence's pair replaced by another pair of its word (the paper replaced "the word
    senses with the correct ones", section 3.2; ``Draw.pair`` keeps what the writer was
    shown), or an ending assigned to its pair's other sense."""

    sentence = models.ForeignKey(
        Sentence, null=True, blank=True, on_delete=models.CASCADE, related_name="sense_swaps"
    )
    ending = models.ForeignKey(
        Ending, null=True, blank=True, on_delete=models.CASCADE, related_name="sense_swaps"
    )
    pair_before = models.ForeignKey(
        SensePair, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    pair_after = models.ForeignKey(
        SensePair, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    sense_before = models.ForeignKey(
        "annotations.Sense", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    sense_after = models.ForeignKey(
        "annotations.Sense", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    reason = models.TextField(blank=True)
    by = who(related_name="+")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(sentence__isnull=False, ending__isnull=True)
                    & Q(pair_before__isnull=False, pair_after__isnull=False)
                    & Q(sense_before__isnull=True, sense_after__isnull=True)
                    & ~Q(pair_before=models.F("pair_after"))
                )
                | (
                    Q(sentence__isnull=True, ending__isnull=False)
                    & Q(sense_before__isnull=False, sense_after__isnull=False)
                    & Q(pair_before__isnull=True, pair_after__isnull=True)
                    & ~Q(sense_before=models.F("sense_after"))
                ),
                name="sense_swap_of_one_text",
            )
        ]

    def __str__(self) -> str:
        what = f"sentence {self.sentence_id}" if self.sentence_id else f"ending {self.ending_id}"
        return f"{what}: senses changed {self.at:%Y-%m-%d %H:%M}"


class Cleanup(LLMRequest):
    """A spelling clean-up suggested with a B.1 prompt, shown as a diff; the researcher
    accepts it (it becomes the edited text) or rejects it."""

    Status = SuggestionStatus

    sentence = models.ForeignKey(
        Sentence, null=True, blank=True, on_delete=models.CASCADE, related_name="cleanups"
    )
    ending = models.ForeignKey(
        Ending, null=True, blank=True, on_delete=models.CASCADE, related_name="cleanups"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    original = models.TextField()
    suggested = models.TextField(blank=True)
    prompt_version = models.CharField(max_length=100)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(sentence__isnull=True) ^ Q(ending__isnull=True),
                name="cleanup_of_one_text",
            )
        ]

    def __str__(self) -> str:
        return f"{self.original[:40]} -> {self.suggested[:40]}"


class ReviewDecision(models.Model):
    """The log of review decisions: who decided what about which text, and why."""

    sentence = models.ForeignKey(
        Sentence, null=True, blank=True, on_delete=models.CASCADE, related_name="decisions"
    )
    ending = models.ForeignKey(
        Ending, null=True, blank=True, on_delete=models.CASCADE, related_name="decisions"
    )
    decision = models.CharField(max_length=10, choices=Reviewed.Decision.choices)
    text_before = models.TextField(blank=True)
    text_after = models.TextField(blank=True)
    reason = models.TextField(blank=True)
    by = who(related_name="+")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-at", "-id"]

    def __str__(self) -> str:
        return f"{self.decision}: {self.text_after[:40]}"
