"""The AmbiStory paper's texts, used as every new study's defaults.
The other kinds' texts are in ``studies.defaults_kinds``; ``KIND_TEXTS`` below holds them all.

Source: Gehring & Roth, AmbiStory, Appendix A.2.3 (guidelines, scale), A.3 (qualification
test, plausibility variant) and C (Figure 4, rating interface). Texts are verbatim.

The paper marks the correct qualification answers by underlining, which did not survive the
text version we work from; the expected answers below are read off the stories (the displayed
meaning is clearly wrong -> 1, clearly right -> 5) with a tolerance of 1, so a grade of 1-2
or 4-5 passes. Researchers can change both per question on the study form.
The paper shows no example sentence for the qualification meanings; when they are reused as
attention checks they must look like ordinary items, which always show "(as in: ...)", so
the example sentences here are ours.
"""

from __future__ import annotations

import functools
import secrets
from dataclasses import dataclass, field

from annotations.kinds import KINDS

from . import kind_pages
from .defaults_kinds import (
    RELATEDNESS_CHECKS,
    RELATEDNESS_GUIDELINES,
    RELATEDNESS_SCALE,
    RELATEDNESS_SCALE_INTRO,
    RELATEDNESS_SCALE_WORDS,
    RELATEDNESS_UI,
    SENSE_CHOICE_GUIDELINES,
    SENSE_CHOICE_UI,
    USE_PAIR_GUIDELINES,
    USE_PAIR_SCALE,
    USE_PAIR_SCALE_INTRO,
    USE_PAIR_SCALE_WORDS,
    USE_PAIR_UI,
)

SCALE = {
    1: "The displayed meaning is not plausible at all given the context.",
    2: "The displayed meaning is theoretically conceivable, but less plausible than other "
    "meanings.",
    3: "The displayed meaning represents one of multiple, similarly plausible interpretations.",
    4: "The displayed meaning represents the most plausible interpretation; other meanings may "
    "still be conceivable.",
    5: "The displayed meaning is the only plausible meaning given the context.",
}

# A few words under each number, so that a touch screen (no hover title) shows what the
# score means without opening the guidelines; the full text stays the radio's label.
SCALE_WORDS = {
    1: "Not plausible",
    2: "Conceivable",
    3: "One of several",
    4: "Most plausible",
    5: "The only meaning",
}

SCALE_INTRO = (
    "Annotate how plausible a meaning of a word is in the context of the short text using one "
    "of five scores:"
)

GUIDELINES = """\
# Introduction to the Plausibility Annotation Task

## Overview

You will see a short text in which one sentence is written in bold. That sentence contains a \
word that can typically take on multiple different meanings, depending on the context. One of \
those meanings is shown to you.

Your task is simple: Annotate how plausible a meaning of a word is in the context of the short \
text using one of five scores:

- **1:** The displayed meaning is not plausible at all given the context.
- **2:** The displayed meaning is theoretically conceivable, but less plausible than other \
meanings.
- **3:** The displayed meaning represents one of multiple, similarly plausible interpretations.
- **4:** The displayed meaning represents the most plausible interpretation; other meanings may \
still be conceivable.
- **5:** The displayed meaning is the only plausible meaning given the context.

See below for examples.

You can also mark stories as *nonsensical*, meaning that the text is strange no matter which \
meaning of the word is used. Even if a story is nonsensical, try to pick whatever makes the \
most sense to you. You can simply go with your intuition here.

Also, feel free to add comments in the comment field.

There will be times where there is no objectively correct answer. Whatever the case, always \
look at all of the sentences and carefully think about how plausible each meaning would be.

## Examples

"**The bat flew out of the cave.**"

Meaning of "BAT": A sports implement for hitting balls (e.g. in baseball)

Your Rating: 1

Explanation: A baseball bat flying out of a cave is inconceivable; it obviously refers to an \
animal.

"The letter specified where to meet him. **So after reading it, I went to the bank.**"

Meaning of "BANK": a financial institution

Your Rating: 3

Explanation: *Bank* could refer to the financial institution, but it could also be a river \
bank. Neither one seems particularly plausible compared to the other, so your rating should be \
in the middle.

"The composer often spontaneously had ideas for new melodies. **She writes notes on a sheet of \
paper.** She can later turn these into a piece."

Meaning of "NOTES": a brief written record; a memo

Your Rating: 2

Explanation: *Notes* could conceivably refer to written memos, but given the surrounding \
sentences, it is more plausible that she is jotting down musical notes.

"Mr Ellis walked to the town square with a big smile. He was getting ready to paint. \
**Whenever he sets up his easel in the town square, he always draws a crowd.** His painting of \
a flower looked really realistic!"

Meaning of "DRAWS": to attract; direct towards itself

Your Rating: 5

Explanation: Without the last sentence, it is not clear whether the intended meaning of \
*draws* is *to sketch* or *to attract*. With the additional context that he is sketching a \
flower - not a crowd - it becomes clear that *attract* is the only plausible meaning. **Always \
look at the whole story before making your decision!**

## The Annotation Procedure

You will first have to pass the qualification test, which consists of four questions. **You \
only have one attempt at this.** Carefully look at the sentences and determine the \
plausibility of meanings.

If you fail at the qualification test: You will not be able to start the annotation. \
**Remember to copy the Screen-Out Completion Code that will be displayed to Prolific.**

If you succeed at the qualification test: Once you pass the qualification test, you will \
automatically unlock access to the annotation page. Each annotator is assigned {items}.

Your progress for both qualification and annotation is **saved automatically** anytime you \
press the *Submit* button of the qualification test or the *Next* button of a rating page.

Good luck and have fun!
"""

# Appendix A.3, plausibility-rating variant: one meaning shown, answer on the 1-5 scale.
QUALIFICATION = [
    {
        "homonym": "hard",
        "precontext": "The puzzle pieces were scattered across the table. We spent hours on "
        "the puzzle, but each piece seemed to fit nowhere.",
        "sentence": "It was a hard puzzle.",
        "meaning": "solid; not soft",
        "example_sentence": "The ground was frozen hard.",
        "expected": 1,
        "tolerance": 1,
    },
    {
        "homonym": "lousy",
        "precontext": "The hotel I stayed at last week was the worst. The room was dirty and "
        "there was no one at the reception.",
        "sentence": "The service there was really lousy.",
        "meaning": "very bad",
        "example_sentence": "It was a lousy film.",
        "expected": 5,
        "tolerance": 1,
    },
    {
        "homonym": "fan",
        "precontext": "Max started sweating in the summer heat. His entire house felt like a "
        "sauna.",
        "sentence": "If he had a fan, the heat would be bearable.",
        "meaning": "an enthusiastic follower or admirer",
        "example_sentence": "She has been a fan of the band for years.",
        "expected": 1,
        "tolerance": 1,
    },
    {
        "homonym": "beat",
        "precontext": "Mia and Peter were preparing for the big race. Peter was confident in "
        "his talent, so he did not train much.",
        "sentence": "In the end, Mia beat him in the race.",
        "meaning": "come out better in a competition, race or conflict",
        "example_sentence": "We beat the other team.",
        "expected": 5,
        "tolerance": 1,
    },
]
for _q in QUALIFICATION:  # the check stories below are others: never the test again
    _q.update(in_qualification=True, as_attention_check=False)

# Attention checks (ours; the paper does not print its own): stories that look like every
# other item, whose shown meaning is clearly wrong (1) or clearly right (5), so that one
# careful reading passes. Not the qualification stories, which a participant has just seen.
ATTENTION_CHECKS = [
    {
        "homonym": "bark",
        "precontext": "The dog heard a noise outside the house. It ran to the front door and "
        "waited there, ears up.",
        "sentence": "Then it began to bark loudly.",
        "meaning": "the tough outer covering of a tree trunk",
        "example_sentence": "The bark of the old oak was rough and grey.",
        "expected": 1,
        "tolerance": 1,
    },
    {
        "homonym": "match",
        "precontext": "The power went out during the storm and the cabin went dark. Tom felt "
        "his way to the drawer where the candles were kept.",
        "sentence": "He struck a match and lit a candle.",
        "meaning": "a short thin stick that makes a flame when rubbed on a rough surface",
        "example_sentence": "She lit the fire with a match.",
        "expected": 5,
        "tolerance": 1,
    },
    {
        "homonym": "spring",
        "precontext": "The snow had finally melted in the valley. Birds were singing in the "
        "garden again and the first flowers were out.",
        "sentence": "Spring had arrived at last.",
        "meaning": "a coil of metal that returns to its shape after being pressed",
        "example_sentence": "The old mattress had a broken spring.",
        "expected": 1,
        "tolerance": 1,
    },
]
for _q in ATTENTION_CHECKS:
    _q.update(in_qualification=False, as_attention_check=True)

# The same stories with the paper's other meaning shown (A.3 lists both meanings of each).
# They widen the pool a participant's questions are drawn from (studies.qualification), so
# that the public defaults do not say which answer a participant's page expects.
QUALIFICATION_OTHER_MEANINGS = [
    {**QUALIFICATION[0], "meaning": "difficult to understand or solve", "expected": 5},
    {**QUALIFICATION[1], "meaning": "infested with lice", "expected": 1},
    {**QUALIFICATION[2], "meaning": "a device for creating a current of air", "expected": 5},
    {**QUALIFICATION[3], "meaning": "strike violently", "expected": 1},
]
for _q in QUALIFICATION_OTHER_MEANINGS:
    _q.update(example_sentence="", as_attention_check=False)

# Figure 4's wording on the rating page.
UI = {
    "read": "Read the following story",
    "focus": "Focus on the word:",
    "question": "Given the context of the story, how plausible is the following meaning of "
    "the word?",
    "select": "Select the plausibility of this meaning.",
    "show_guidelines": "Show guidelines for rating plausibility",
    "nonsensical": "Check this box if the text is nonsensical.",
    "comments": "Comments (optional)",
    "missing": "Please select a plausibility from 1 to 5.",
    "keys": "Keyboard: press 1\u20135 to choose, Enter for Next.",
}

PROLIFIC_COMPLETION_URL = "https://app.prolific.com/submissions/complete?cc={code}"


def new_code() -> str:
    """A fresh Prolific-style completion code (8 upper-case letters and digits)."""
    alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
    return "".join(secrets.choice(alphabet) for _ in range(8))


@dataclass(frozen=True)
class KindTexts:
    """What a study of one task kind shows and starts with."""

    scale: dict[int, str]
    scale_intro: str
    ui: dict[str, str]
    guidelines: str
    checks: list[dict] = field(default_factory=list)
    attention_checks_per_batch: int = 1
    scale_words: dict[int, str] = field(default_factory=dict)
    one_item_per_word: bool = False  # Study.one_item_per_word of a new study
    attention_min_correct: int = 100  # percent (Study.attention_min_correct)
    bot_checks: int = 0  # questions after consent (Study.bot_checks, studies.bot_checks)


# Per task kind (``annotations.kinds``): what its studies show and start with.
KIND_TEXTS: dict[str, KindTexts] = {
    "plausibility": KindTexts(
        SCALE,
        SCALE_INTRO,
        UI,
        GUIDELINES,
        QUALIFICATION + QUALIFICATION_OTHER_MEANINGS + ATTENTION_CHECKS,
        1,
        scale_words=SCALE_WORDS,
    ),
    "relatedness": KindTexts(
        RELATEDNESS_SCALE,
        RELATEDNESS_SCALE_INTRO,
        RELATEDNESS_UI,
        RELATEDNESS_GUIDELINES,
        RELATEDNESS_CHECKS,
        attention_checks_per_batch=2,
        scale_words=RELATEDNESS_SCALE_WORDS,
        one_item_per_word=True,  # RAW-C: "no word was repeated twice ... for the same participant"
        attention_min_correct=50,  # RAW-C excluded participants below 50% on its catch trials
        bot_checks=2,  # RAW-C: "two questions designed to filter out bots" after consent
    ),
    "sense_choice": KindTexts({}, "", SENSE_CHOICE_UI, SENSE_CHOICE_GUIDELINES, [], 0),
    # gold pairs (the attention checks) come from the word's graph: ``wug.crowd``
    "use_pair": KindTexts(
        USE_PAIR_SCALE,
        USE_PAIR_SCALE_INTRO,
        USE_PAIR_UI,
        USE_PAIR_GUIDELINES,
        [],
        attention_checks_per_batch=1,
        scale_words=USE_PAIR_SCALE_WORDS,
    ),
}


# Study fields a new study takes from its kind's ``KindTexts`` unless given.
KIND_DEFAULTS = (
    "attention_checks_per_batch",
    "one_item_per_word",
    "attention_min_correct",
    "bot_checks",
)


def for_kind(kind: str) -> KindTexts:
    """The texts and defaults of a task kind (plausibility, the AmbiStory paper's, for any
    other value)."""
    return KIND_TEXTS.get(kind, KIND_TEXTS["plausibility"])


# (singular, plural) of one item a participant answers, per task kind: "Pair 3 of 6",
# "Finished pairs: 2/6"; the guidelines' {items}. An activity may name its own
# (``activities.Activity.nouns``).
ITEM_NOUNS: dict[str, tuple[str, str]] = {value: k.item_nouns for value, k in KINDS.items()}


def item_nouns(kind: str) -> tuple[str, str]:
    """The (singular, plural) item noun of a task kind."""
    return ITEM_NOUNS.get(kind, ITEM_NOUNS["plausibility"])


@functools.lru_cache(maxsize=8)
def _scale_rows(kind: str) -> tuple[tuple[int, str, str], ...]:
    """(score, full text, short words) for the radio buttons of ``kind``'s scale."""
    texts = for_kind(kind)
    return tuple((n, text, texts.scale_words.get(n, "")) for n, text in texts.scale.items())


def page_context(kind: str) -> dict:
    """What the participant pages of a study of ``kind`` need: ``ui``, ``scale``,
    ``scale_intro``, ``kind``, ``scale_rows``, the item nouns (``item_noun``,
    ``items_noun``, capitalised) and the template part showing an item (``kind_pages``)."""
    texts = for_kind(kind)
    item, items = item_nouns(kind)
    return {
        "ui": texts.ui,
        "scale": texts.scale,
        "scale_intro": texts.scale_intro,
        "kind": kind,
        "scale_rows": _scale_rows(kind),
        "item_noun": item.capitalize(),
        "items_noun": items.capitalize(),
        "item_template": kind_pages.get(kind).item_template,
    }
