"""The default texts of the task kinds besides AmbiStory's plausibility (``studies.defaults``
holds those and the per-kind registry ``KIND_TEXTS`` that reads these): RAW-C's relatedness
(Trott & Bergen 2021), sense choice (FOOL, sensebench) and DURel's use pairs (Schlechtweg et
al. 2018; the DURel tool)."""

from __future__ import annotations

# --- relatedness (RAW-C) ---------------------------------------------------------------
# Trott & Bergen 2021: a scale from 0 "totally unrelated" to 4 "same meaning". The paper
# labels only the ends; the middle labels are ours.
RELATEDNESS_SCALE = {
    0: "Totally unrelated: the word means unrelated things in the two sentences.",
    1: "Distantly related.",
    2: "Somewhat related.",
    3: "Closely related.",
    4: "Same meaning: the word means the same thing in both sentences.",
}

RELATEDNESS_SCALE_WORDS = {
    0: "Unrelated",
    1: "Distantly related",
    2: "Somewhat related",
    3: "Closely related",
    4: "Same meaning",
}

RELATEDNESS_SCALE_INTRO = (
    "Rate how related the meanings of the bold word are in the two sentences, from 0 "
    '("totally unrelated") to 4 ("same meaning"):'
)

RELATEDNESS_GUIDELINES = """\
# How related are the two meanings?

Each item shows two sentences that use the same word, printed in **bold** in both. Think \
about what the word means in each sentence, then rate how related the two meanings are.

- **0: totally unrelated.** The word means unrelated things (e.g. a *bat* that flies and a \
*bat* used in baseball).
- **4: same meaning.** The word means the same thing in both sentences.
- Use 1-3 for meanings in between: related, but not the same.

Judge the meaning of the bold word only, not whether the sentences are about the same topic. \
Some items check that you read carefully.
"""

# The paper's two catch trials (section 4): an identical pair must get "same meaning"; a
# homonym across parts of speech (rose.v / rose.n) must get "totally unrelated".
RELATEDNESS_CHECKS = [
    {
        "homonym": "dog",
        "precontext": "The dog barked at the mailman.",
        "sentence": "The dog barked at the mailman.",
        "meaning": "Catch trial: identical sentences",
        "expected": 4,
        "tolerance": 0,
        "in_qualification": False,
    },
    {
        "homonym": "rose",
        "precontext": "The sun rose over the hills.",
        "sentence": "She put a red rose in the vase.",
        "meaning": "Catch trial: homonym across parts of speech (rose.v, rose.n)",
        "expected": 0,
        "tolerance": 0,
        "in_qualification": False,
    },
]

RELATEDNESS_UI = {
    "read": "Read the two sentences",
    "focus": "The word in bold in both sentences:",
    "question": "How related are the meanings of the bold word in the two sentences?",
    "select": "Select how related the two meanings are.",
    "show_guidelines": "Show guidelines for rating relatedness",
    "nonsensical": "Check this box if a sentence is nonsensical.",
    "comments": "Comments (optional)",
    "missing": "Please select a relatedness from 0 to 4.",
    "keys": "Keyboard: press 0\u20134 to choose, Enter for Next.",
}

# --- sense choice (FOOL, sensebench) -------------------------------------------------------
SENSE_CHOICE_GUIDELINES = """\
# Which meaning is used?

Each item shows a sentence with one word in **bold** and a few meanings of that word. Choose \
the meaning the word has in this sentence. Some sentences mention things that fit the other \
meaning on purpose: decide by what the bold word itself refers to.
"""

SENSE_CHOICE_UI = {
    "read": "Read the sentence",
    "focus": "The word:",
    "question": "Which meaning does the bold word have in this sentence?",
    "select": "Select the meaning.",
    "show_guidelines": "Show guidelines",
    "nonsensical": "Check this box if the sentence is nonsensical.",
    "comments": "Comments (optional)",
    "missing": "Please select a meaning.",
    "keys": "Keyboard: press 1, 2, \u2026 to choose, Enter for Next.",
}


# --- use pairs (DURel, word usage graphs) -------------------------------------------------
# The DURel scale (Schlechtweg et al. 2018; the DURel tool, EACL 2024 demo), in the order the
# page offers it: 1-4, then "cannot decide" (0), which is left out of medians.
USE_PAIR_SCALE = {
    1: "Unrelated: the marked word means unrelated things in the two uses.",
    2: "Distantly related.",
    3: "Closely related.",
    4: "Identical: the marked word means the same thing in both uses.",
    0: "Cannot decide.",
}

USE_PAIR_SCALE_WORDS = {
    1: "Unrelated",
    2: "Distantly related",
    3: "Closely related",
    4: "Identical",
    0: "Cannot decide",
}

USE_PAIR_SCALE_INTRO = (
    "Rate how related the meanings of the marked word are in the two uses, from 1 "
    '("unrelated") to 4 ("identical"), or 0 if you cannot decide:'
)

USE_PAIR_GUIDELINES = """\
# How related are the two uses?

Each item shows two uses of the same word, side by side (one above the other on a phone). \
The word is **marked** in both; the sentence it is in is printed normally and the text around \
that sentence in grey, as background. Think about what the marked word means in each use, then \
rate how related the two meanings are:

- **4: identical.** The word means the same thing in both uses.
- **3: closely related.** The meanings are different but closely related.
- **2: distantly related.** The meanings are different and only distantly related.
- **1: unrelated.** The meanings have nothing to do with each other.
- **0: cannot decide.** Use this only when you cannot tell (e.g. the text is unclear); it \
is not a point on the scale.

Judge the meaning of the marked word only, not whether the texts are about the same topic. \
Some pairs have a known answer and check that you read carefully.
"""

USE_PAIR_UI = {
    "read": "Read the two uses",
    "focus": "The marked word in both uses:",
    "question": "How related are the meanings of the marked word in the two uses?",
    "select": "Select how related the two meanings are.",
    "show_guidelines": "Show guidelines for judging use pairs",
    "nonsensical": "Check this box if a use is nonsensical.",
    "comments": "Comments (optional)",
    "missing": "Please select 1 to 4, or 0 if you cannot decide.",
    "keys": "Keyboard: press 1\u20134 to choose (0: cannot decide), Enter for Next.",
}
