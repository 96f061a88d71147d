from __future__ import annotations

import copy
import functools
from collections.abc import Sequence

from django import forms
from django.db.models import QuerySet
from django.forms import inlineformset_factory

from annotations.models import Sample, Split, TaskKind, score_range

from . import bot_checks, defaults, lists
from .adaptive import TRADEOFF, bounds_problem
from .models import TIME_LIMIT_MAX_MINUTES, CheckQuestion, ListDesign, Study

SCORES = [(n, str(n)) for n in range(1, 6)]


class StudyForm(forms.ModelForm):
    """Study settings plus which samples to use (a split, optionally filtered)."""

    ENDINGS = [("all", "All stories"), ("with", "With an ending"), ("without", "Without")]

    split = forms.ModelChoiceField(
        queryset=Split.objects.select_related("dataset"),
        required=False,
        help_text="Samples come from this split.",
    )
    endings = forms.ChoiceField(choices=ENDINGS, initial="all", label="Stories")
    homonyms = forms.CharField(
        required=False, help_text="Only these homonyms (comma-separated); empty = all."
    )
    prolific_completion_url = forms.URLField(
        assume_scheme="https",
        required=False,
        label="Completion URL",
        initial=defaults.PROLIFIC_COMPLETION_URL,
        help_text="{code} is replaced by the completion or screen-out code. Empty: Prolific's.",
    )
    limit = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=1_000_000,
        label="At most N samples",
        help_text="At most this many samples (whole setups).",
    )
    WORD_RULES = [
        ("", "The task's default (on for relatedness)"),
        ("on", "On: a batch never holds two items of one word"),
        ("off", "Off: one sample per setup only"),
    ]
    word_rule = forms.ChoiceField(
        choices=WORD_RULES,
        required=False,
        label="One item per word",
        help_text="RAW-C showed a participant at most one pair per word (with fixed lists: a "
        "list holds one sample per word). Fixed once the study is opened.",
    )
    ASSIGNMENTS = [
        ("samples", "Per sample: each participant gets a batch of free places"),
        ("lists", "Fixed lists: each list rated whole by exactly N participants"),
    ]
    assignment = forms.ChoiceField(
        choices=ASSIGNMENTS,
        initial="samples",
        required=False,
        label="Assignment",
        help_text="Fixed lists follow the AmbiStory paper (groups of annotators sharing a list, "
        "so the best annotator per group can be computed): lists of 'samples per "
        "participant' made from the samples, one sample per story, or uploaded on the "
        "study page; N is 'ratings per sample'. Not with adaptive allocation.",
    )
    latin_square = forms.BooleanField(
        required=False,
        initial=True,
        label="Latin-square order",
        help_text="Fixed lists: rotate the order of a list's items across its N participants; "
        "off: each participant sees the list in an order of their own.",
    )

    class Meta:
        model = Study
        fields = [
            "title",
            "slug",
            "task_kind",
            "ratings_per_sample",
            "adaptive",
            "adaptive_rule",
            "max_ratings_per_sample",
            "target_width",
            "rating_budget",
            "samples_per_participant",
            "attention_checks_per_batch",
            "attention_min_correct",
            "bot_checks",
            "time_limit_minutes",
            "qualification_minutes",
            "questions_per_participant",
            "max_unqualified",
            "pid_pattern",
            "prolific_study_id",
            "completion_code",
            "screenout_code",
            "prolific_completion_url",
            "contact",
            "guidelines",
        ]
        widgets = {
            "guidelines": forms.Textarea(attrs={"rows": 12}),
            "slug": forms.TextInput(attrs={"data-slug-from": "id_title"}),
        }
        labels = {
            "slug": "Short name in the link",
            "task_kind": "Task",
            "ratings_per_sample": "Ratings per sample",
            "adaptive": "Adaptive allocation",
            "adaptive_rule": "Which samples grow first",
            "max_ratings_per_sample": "Most ratings per sample",
            "target_width": "Target interval width",
            "rating_budget": "Rating budget",
            "samples_per_participant": "Samples per participant",
            "attention_checks_per_batch": "Attention checks per participant",
            "attention_min_correct": "Least share of attention checks right (%)",
            "bot_checks": "Bot checks at the start",
            "time_limit_minutes": "Time limit (minutes)",
            "qualification_minutes": "Hold before qualifying (minutes)",
            "questions_per_participant": "Qualification questions per participant",
            "max_unqualified": "Most unqualified holds at once",
            "pid_pattern": "Participant ID pattern",
            "prolific_study_id": "Prolific study ID",
            "completion_code": "Completion code",
            "screenout_code": "Screen-out code",
            "contact": "Researcher contact",
        }
        help_texts = {
            "adaptive_rule": TRADEOFF,
            "slug": "Letters, digits and hyphens; the participant link is /s/<short name>/. "
            "Filled in from the title; you can change it.",
            "time_limit_minutes": "Counted from consent; the paper allowed 60 minutes. At most "
            f"{TIME_LIMIT_MAX_MINUTES} minutes (a week).",
            "prolific_study_id": "When set, arrivals whose STUDY_ID differs are refused; with "
            "the site's Prolific API token, each arrival is also checked with Prolific.",
            "guidelines": '{items} (e.g. "30 samples"), {checks}, {time_limit} and '
            "{qualification_time} are replaced by this study's settings where participants "
            "read them.",
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in self.OPTIONAL_WITH_DEFAULT:  # left empty: the model's default
            self.fields[name].required = False
        for name, text in self.KIND_DEFAULT_HELP.items():  # left empty: the kind's default
            self.fields[name].required = False
            self.fields[name].help_text = text
            if not self.instance.pk:
                self.initial[name] = None
        if not self.instance.pk:
            self.initial.setdefault("guidelines", defaults.GUIDELINES)
            self.initial.setdefault("completion_code", defaults.new_code())
            self.initial.setdefault("screenout_code", defaults.new_code())
            self.fields["split"].required = True
        else:
            self.fields[
                "split"
            ].help_text = "Samples come from this split. Leave empty to keep the current samples."
        if self.instance.pk:
            design = ListDesign.objects.filter(study=self.instance).first()
            self.initial["assignment"] = "lists" if design else "samples"
            self.initial["latin_square"] = design.latin_square if design else True
            self.initial["word_rule"] = "on" if self.instance.one_item_per_word else "off"
        if self.instance.pk and self.instance.status != Study.Status.DRAFT:
            for name in (
                "task_kind", "split", "endings", "homonyms", "limit", "assignment", "word_rule",
            ):  # fmt: skip
                self.fields[name].disabled = True
            self.fields["latin_square"].disabled = True

    # The settings a new study takes from its task kind when left empty
    # (``defaults.KIND_DEFAULTS``; "one item per word" is the ``word_rule`` choice), with the
    # help text that names each kind's default.
    KIND_DEFAULT_HELP = {
        "attention_checks_per_batch": "Empty: the task's default (plausibility 1; relatedness "
        "2, the RAW-C paper's catch trials; sense choice 0).",
        "attention_min_correct": "A participant with fewer of their attention checks right is "
        "excluded and their places go to others. Empty: the task's default (relatedness 50, "
        "as RAW-C excluded those below 50% on its catch trials; otherwise 100: one wrong "
        "answer excludes). Applies to answers given after a change.",
        "bot_checks": 'Simple questions after consent that filter out bots ("Which of the '
        'following is not a place to swim?"); a wrong answer screens the participant out. '
        "Empty: the task's default (relatedness 2, as in RAW-C; otherwise 0).",
    }

    OPTIONAL_WITH_DEFAULT = (
        "task_kind",
        "adaptive_rule",
        "qualification_minutes",
        "questions_per_participant",
        "max_unqualified",
        "pid_pattern",
        "prolific_completion_url",
        "max_ratings_per_sample",
        "target_width",
    )

    def clean(self):
        data = super().clean() or {}
        for name in self.OPTIONAL_WITH_DEFAULT:
            if data.get(name) in (None, ""):
                data[name] = Study._meta.get_field(name).get_default()  # type: ignore[union-attr]
        split, kind = data.get("split"), data.get("task_kind")
        by_lists = data.get("assignment") == "lists"
        kind_problem = lists.kind_problem(kind or TaskKind.PLAUSIBILITY) if by_lists else None
        if by_lists and data.get("adaptive"):
            self.add_error("assignment", "Fixed lists cannot be combined with adaptive allocation.")
        elif kind_problem:
            self.add_error("assignment", kind_problem)
        ratings, most = data.get("ratings_per_sample"), data.get("max_ratings_per_sample")
        if data.get("adaptive") and ratings is not None and most is not None:
            bounds = bounds_problem(ratings_per_sample=ratings, max_ratings_per_sample=most)
            if bounds:
                self.add_error("max_ratings_per_sample", bounds)
        if split and kind and split.dataset.task_kind != kind:
            self.add_error(
                "split",
                f"{split} holds {split.dataset.get_task_kind_display().lower()} samples; "
                "choose a split of the study's task.",
            )
        return data

    def clean_prolific_completion_url(self) -> str:
        url = self.cleaned_data["prolific_completion_url"]
        if url and "{code}" not in url:
            raise forms.ValidationError("The URL must contain {code}.")
        return url

    def samples(self) -> QuerySet[Sample] | None:
        """The chosen samples, or None to keep the study's current ones."""
        data = self.cleaned_data
        if not data.get("split"):
            return None
        qs = Sample.objects.filter(split=data["split"])
        if data["endings"] != "all":
            qs = qs.with_ending(data["endings"] == "with")
        words = [w.strip() for w in data.get("homonyms", "").split(",") if w.strip()]
        if words:
            qs = qs.filter(story__setup__homonym__form__in=words)
        qs = qs.order_by("position")
        if data.get("limit"):
            ids = list(qs.values_list("id", flat=True)[: data["limit"]])
            qs = Sample.objects.filter(id__in=ids)
        return qs

    def settings(self) -> dict:
        """The study's fields. A study of another kind whose guidelines are still the
        plausibility default gets its own kind's (``defaults.for_kind``), and so do an
        empty number of attention checks, an empty least share of them right, empty bot
        checks and "one item per word" left at the task's default."""
        found = {name: self.cleaned_data[name] for name in self.Meta.fields}
        found["assignment"] = self.cleaned_data.get("assignment") or "samples"
        found["latin_square"] = bool(self.cleaned_data.get("latin_square"))
        kind = found.get("task_kind") or TaskKind.PLAUSIBILITY
        for name in self.KIND_DEFAULT_HELP:
            if found.get(name) is None:
                found[name] = getattr(defaults.for_kind(kind), name)
        rule = self.cleaned_data.get("word_rule") or ""
        per_word = defaults.for_kind(kind).one_item_per_word
        found["one_item_per_word"] = {"on": True, "off": False}.get(rule, per_word)
        shown = (found.get("guidelines") or "").replace("\r\n", "\n").strip()
        if kind != TaskKind.PLAUSIBILITY and shown == defaults.GUIDELINES.strip():
            found["guidelines"] = defaults.for_kind(kind).guidelines
        return found


CheckQuestionFormSet = inlineformset_factory(
    Study,
    CheckQuestion,
    fields=[
        "order",
        "homonym",
        "precontext",
        "sentence",
        "ending",
        "meaning",
        "example_sentence",
        "other_meaning",
        "expected",
        "tolerance",
        "in_qualification",
        "as_attention_check",
    ],
    widgets={
        "precontext": forms.Textarea(attrs={"rows": 2}),
        "sentence": forms.Textarea(attrs={"rows": 1}),
        "ending": forms.Textarea(attrs={"rows": 1}),
        "meaning": forms.Textarea(attrs={"rows": 1}),
        "example_sentence": forms.Textarea(attrs={"rows": 1}),
        "other_meaning": forms.Textarea(attrs={"rows": 1}),
    },
    extra=1,
    can_delete=True,
)


class RatingForm(forms.Form):
    """One answer. The scores offered follow the task kind: 1-5, 0-4, or the indices of the
    item's candidate senses (``n_choices``)."""

    score = forms.TypedChoiceField(choices=SCORES, coerce=int, widget=forms.RadioSelect)
    nonsensical = forms.BooleanField(required=False)
    comment = forms.CharField(required=False, max_length=2000, widget=forms.Textarea)
    shown_at = forms.DateTimeField(required=False, widget=forms.HiddenInput)
    text_version = forms.RegexField(
        regex=r"^\d{1,9}\.\d{1,9}\.\d{1,9}$", required=False, widget=forms.HiddenInput
    )

    def __init__(self, *args, kind: str = TaskKind.PLAUSIBILITY, n_choices: int = 0, **kwargs):
        low, high = score_range(kind)
        if kind == TaskKind.SENSE_CHOICE and n_choices:
            high = min(high, low + n_choices - 1)
        # Django deep-copies ``base_fields`` into every instance (a quarter of this page's
        # form CPU, on every rating POST); the fields of a scale are built once instead and
        # shared, which is safe because nothing changes a field after it is built.
        self.base_fields = _Shared(_rating_fields(low, high))  # type: ignore[misc]  # on purpose
        super().__init__(*args, **kwargs)

    @staticmethod
    def shown(score=None, nonsensical=False, comment="", error=False) -> dict[str, object]:
        """What the rating page's controls show (rate.html's ``answer``): the chosen score
        as text ("" for none), the box, the comment, and whether to say a score is missing.
        A page showing a saved (or no) answer needs no form instance for this."""
        return {
            "score": "" if score is None else str(score),
            "nonsensical": bool(nonsensical),
            "comment": comment or "",
            "error": error,
        }

    def shown_answer(self) -> dict[str, object]:
        """``shown`` for this form: what was sent (a refused answer is shown again)."""
        return self.shown(
            self["score"].value(),
            self["nonsensical"].value(),
            self["comment"].value(),
            "score" in self.errors if self.is_bound else False,
        )


class _Shared(dict):
    """Fields that a form instance uses as they are (``copy.deepcopy`` returns them)."""

    def __deepcopy__(self, memo):
        return self


@functools.cache
def _rating_fields(low: int, high: int) -> dict[str, forms.Field]:
    """RatingForm's fields with the scale ``low``..``high``; one set per scale and process."""
    fields = copy.deepcopy(RatingForm.base_fields)
    fields["score"].choices = _scale(low, high)  # type: ignore[attr-defined]
    return fields


def _scale(low: int, high: int) -> list[tuple[int, str]]:
    """The choices of a score scale ``low``..``high`` (a kind's: ``score_range``)."""
    return [(n, str(n)) for n in range(low, high + 1)]


class SampleTextsForm(forms.Form):
    """The texts a sample shows in a study. Saving a change makes the study's own version of
    the setup, story or sense it belongs to (shared by other samples of the study: they
    change too); ``initial_for`` gives the reference texts."""

    precontext = forms.CharField(widget=forms.Textarea(attrs={"rows": 4}), max_length=5000)
    sentence = forms.CharField(max_length=1000)
    ending = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 3}), max_length=5000
    )
    gloss = forms.CharField(required=False, max_length=1000, label="Meaning (sense gloss)")
    example_sentence = forms.CharField(required=False, max_length=1000)

    @classmethod
    def initial_for(cls, sample) -> dict[str, str]:
        story, setup, sense = sample.story, sample.story.setup, sample.sense
        return {
            "precontext": setup.precontext,
            "sentence": setup.sentence,
            "ending": story.ending,
            "gloss": sense.gloss if sense else "",
            "example_sentence": sense.example_sentence if sense else "",
        }


class ReferenceTextsForm(SampleTextsForm):
    """The reference texts of a sample (what the benchmark exports and scores use), and
    the number of samples whose labels change, as shown to the researcher: the edit
    happens only when that number is sent back and still holds."""

    confirm_labels = forms.IntegerField(required=False, min_value=0, widget=forms.HiddenInput)


class QualificationForm(forms.Form):
    """One choice per qualification question on the scale of the study's task ``kind``
    (``score_range``, as the rating form: 1-5, RAW-C's 0-4), or a choice of two meanings
    for a question with ``other_meaning`` (the writing studies' variant)."""

    def __init__(
        self,
        *args,
        questions: list[CheckQuestion],
        kind: str,
        bots: Sequence[bot_checks.Drawn] = (),
        **kwargs,
    ):
        super().__init__(*args, **kwargs)
        scale = _scale(*score_range(kind))
        self.questions = questions
        self.bots = list(bots)
        for d in self.bots:  # the bot checks (studies.bot_checks): one option each
            self.fields[f"bot_{d.key}"] = forms.ChoiceField(
                choices=[(o, o) for o in d.options], widget=forms.RadioSelect, label=d.question.text
            )
        for q in questions:
            choices = [(1, q.meaning), (2, q.other_meaning)] if q.other_meaning else scale
            self.fields[f"q{q.pk}"] = forms.TypedChoiceField(
                choices=choices, coerce=int, widget=forms.RadioSelect, label=q.meaning
            )

    def answers(self) -> dict[int, int]:
        return {q.pk: self.cleaned_data[f"q{q.pk}"] for q in self.questions}

    def bot_answers(self) -> dict[str, str]:
        return {d.key: self.cleaned_data[f"bot_{d.key}"] for d in self.bots}

    def bot_rows(self):
        return [(d, self[f"bot_{d.key}"]) for d in self.bots]

    def rows(self):
        return [(q, self[f"q{q.pk}"]) for q in self.questions]


class OutlookForm(forms.Form):
    """The adaptive settings of the study form, for its outlook (``monitoring``): the same
    names as the study's fields; the samples are a split's or a study's."""

    ratings_per_sample = forms.IntegerField(min_value=1, max_value=1000)
    max_ratings_per_sample = forms.IntegerField(min_value=1, max_value=1000, required=False)
    target_width = forms.FloatField(min_value=0, max_value=1000, required=False)
    rating_budget = forms.IntegerField(min_value=0, max_value=10**9, required=False)
    split = forms.ModelChoiceField(queryset=Split.objects.all(), required=False)
    study = forms.ModelChoiceField(queryset=Study.objects.all(), required=False)

    def clean(self):
        data = super().clean() or {}
        for name in ("max_ratings_per_sample", "target_width"):  # empty: the model's default
            if data.get(name) is None and name not in self.errors:
                data[name] = Study._meta.get_field(name).get_default()  # type: ignore[union-attr]
        return data

    def samples(self) -> QuerySet[Sample] | None:
        data = self.cleaned_data
        if data.get("split"):
            return Sample.objects.filter(split=data["split"])
        if data.get("study"):
            return Sample.objects.filter(studies=data["study"])
        return None


class ExclusionForm(forms.Form):
    """The study page's include/exclude confirmation: what to do and why."""

    confirm = forms.ChoiceField(choices=[("exclude", "Exclude"), ("include", "Include")])
    reason = forms.CharField(
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Recorded with the decision, e.g. 'straight-lining: all 5s in 40 seconds'.",
    )
