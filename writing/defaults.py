"""The AmbiStory paper's texts for the writing steps, word for word.

Source: Gehring & Roth, AmbiStory, Appendix A.2.1 (sentence guidelines), A.2.2 (ending
guidelines), A.3 (qualification test, writing variant: pick the more plausible of two
meanings), B.1 (clean-up prompts), B.2 (precontext prompt) and C (Figures 2 and 3).
The correct qualification answers are read off the stories (the paper underlines them).
The guideline texts are shown as the site's guideline markdown (``**bold**``, ``*italic*``).
"""

from __future__ import annotations

from typing import cast

SENTENCE_GUIDELINES = """\
# Introduction to the Ambiguous Sentence Task

## Overview

Your task is to write ambiguous sentences.

A sentence is ambiguous if there are multiple ways to understand it.

You will be presented with a word and two of its meanings. For example, the word *bank* and \
its two word senses "*a financial institution*" and "*slope next to a river*". Your task is to \
write one sentence where the word is used in such a way that depending on how you choose to \
interpret it, either meaning could apply.

For example, you could write something like: "*On Saturday morning, I went to the bank.*" The \
word *bank* here could realistically be either of the two word senses, a financial institution \
or a slope next to a river, so this would be acceptable.

When writing sentences, please try to uphold the following principles:

- **Ideally, both word senses should be equally plausible.**
- Please make sure that the word appears exactly once in the sentence.
- The goal is not to write puns, but to write sentences that allow for multiple interpretations.
- Submissions that clearly contain AI generated content will be rejected.

## Good Examples

Word: racket

Meaning 1: a loud and disturbing noise

Meaning 2: implement used in sports, e.g. tennis racket

Good Example: *I couldn't concentrate at all because of the loud racket from the tennis game.*

This is good: It could refer to the tennis game itself being loud (meaning 1), or the speaker \
specifically complains about the sound of the tennis racket (meaning 2). The sentence is \
plausibly ambiguous.

Word: season

Meaning 1: a set of related television programs

Meaning 2: the four times of year (spring, summer, fall, winter)

Good Example: *Anna thinks that this is the best season.*

This is good: We don't know what "this" refers to. It could be either a time of year or a \
television series. Because of this, the sentence remains successfully ambiguous.

## Bad Examples

Word: bat

Meaning 1: an implement with a handle used for hitting the ball in games such as cricket or \
baseball.

Meaning 2: a nocturnal mammal capable of sustained flight

Bad Example: *The bat flew out of the cave.*

This is bad: It is not plausible that this refers to an implement like a baseball bat. The \
word "bat" is not used ambiguously.

Word: root

Meaning 1: part of the plant which attaches it to the ground

Meaning 2: the basic cause, source or origin of something

Bad Example: *The root of the problem was buried deep, just like the roots of the old oak tree \
in the yard.*

This is bad: The word is used multiple times. *Root* should be used only once, and that \
occurrence should encompass both meanings.

## Task Procedure

You will first have to pass a simple 4-question qualification test to confirm that you are \
human and understand English. The qualification test will ask you to pick the best meaning for \
a word in a short text. If you fail the qualification test, you will not be able to start \
writing.

If you pass qualification, the writing page will automatically unlock for you.

If you cannot think of a sentence for the given word, you can press the button on the top of \
the page to get a new word. You can use the button as many times as you want. You have to \
write {items} to clear the task.

Good luck and have fun!
"""

ENDING_GUIDELINES = """\
# Introduction to the Story Ending Task

## Overview

You will see the first four sentences of a five-sentence short story. Your task is to write \
one sentence that finishes the short story coherently.

Importantly, the fourth sentence contains a word which has multiple meanings. The story is \
written in such a way that you wouldn't know which meaning is the one intended by the author by \
the first four sentences.

Your ending sentence has to make the intended meaning more plausible than the unintended \
meaning. Both meanings will be displayed to you.

Try to not explicitly spell out the meaning. Understanding the intended meaning should only be \
easy to those who pay attention and understand the story. You can achieve this by *avoiding \
words closely associated with the intended meaning*, and by *only implying the happenings in the \
fourth sentence instead of outright stating them*. See below for examples.

The story ending should also be *logical* given the first four sentences. The story does not \
have to be interesting, it just has to make sense and be coherent.

Also, **your ending sentence should NOT include that ambiguous word with multiple meanings from \
the fourth sentence.**

Also, feel free to add comments in the comment field.

## Examples

Story: "Mr Ellis walked to the town square with a big smile. He carried his easel with him. He \
was getting ready to paint. Whenever he sets up his easel in the town square, he always draws a \
crowd."

Intended Meaning of "draws": to attract

Unintended Meaning of "draws": produce an image of something or someone

Your Ending Sentence: Everyone was quite impressed by his picture of a flower.

Explanation: In the first four sentences, it is not clear if he literally sketches a crowd or \
if he simply attracts a crowd. The ending sentence resolves this by implying that he was \
sketching a flower, not a crowd.

Story: "The battle raged on as the sun began to set. He crouched behind a crumbling wall, \
desperately scanning the ground. Bullets whizzed past while his heart pounded loudly in his \
ears. He realized that he only had one shot'.

Intended Meaning of "shot": a chance or opportunity to do something

Unintended Meaning of "shot": a missile from a firearm

Your Ending Sentence: He thought that it was now or never as he attempted to escape from the \
battle.

Explanation: Some stories like this may make it hard to argue for the intended meaning when the \
unintended meaning seems more likely to begin with. Try to be creative and come up with a way \
to increase the intended meaning's plausibility. Here, the implication of him running away and \
the expression "now or never" implies that the amount of shots in his firearm is less important \
than his chance/opportunity to get away.

## The Annotation Procedure

You will first have to pass the qualification test, which consists of four questions. **You \
only have one attempt at this.** The qualification test simply asks you to pick the more likely \
meaning of English words in the context of a sentence. It is mostly to filter out bots and \
should be no problem to English speakers.

If you fail at the qualification test: You will not be able to start writing. **IMPORTANT: \
Remember to copy the Screen-Out Completion Code that will be displayed to Prolific.**

If you succeed at the qualification test: Once you pass the qualification test, you will \
automatically unlock access to the writing page. Each writer is assigned up to {items}.

Your progress for both qualification and writing is **saved automatically** anytime you press \
the *NEXT* button.

Good luck and have fun!
"""

# Appendix A.3, writing variant: the same four stories; pick the more plausible meaning.
QUALIFICATION = [
    {
        "homonym": "hard",
        "precontext": "The puzzle pieces were scattered across the table. We spent hours on "
        "the puzzle, but each piece seemed to fit nowhere.",
        "sentence": "It was a hard puzzle.",
        "meaning": "difficult to understand or solve",
        "other_meaning": "solid; not soft",
        "expected": 1,
    },
    {
        "homonym": "lousy",
        "precontext": "The hotel I stayed at last week was the worst. The room was dirty and "
        "there was no one at the reception.",
        "sentence": "The service there was really lousy.",
        "meaning": "infested with lice",
        "other_meaning": "very bad",
        "expected": 2,
    },
    {
        "homonym": "fan",
        "precontext": "Max started sweating in the summer heat. His entire house felt like a "
        "sauna.",
        "sentence": "If he had a fan, the heat would be bearable.",
        "meaning": "a device for creating a current of air",
        "other_meaning": "an enthusiastic follower or admirer",
        "expected": 1,
    },
    {
        "homonym": "beat",
        "precontext": "Mia and Peter were preparing for the big race. Peter was confident in "
        "his talent, so he did not train much.",
        "sentence": "In the end, Mia beat him in the race.",
        "meaning": "strike violently",
        "other_meaning": "come out better in a competition, race or conflict",
        "expected": 2,
    },
]
for _q in QUALIFICATION:
    _q.update(tolerance=0, in_qualification=True, as_attention_check=False)
# The same stories with the two meanings in the other order: a participant is shown one of
# the two (studies.qualification), so the public defaults do not give the answer's position.
QUALIFICATION += [
    {
        **q,
        "meaning": q["other_meaning"],
        "other_meaning": q["meaning"],
        "expected": 3 - cast(int, q["expected"]),
    }
    for q in QUALIFICATION
]

SENTENCES_PER_WRITER = 5  # A.1: five ambiguous sentences
ENDINGS_PER_WRITER = 20  # A.1: 20 endings ("around 20 stories")

# Figures 2 and 3, word for word.
SENTENCE_UI = {
    "progress": "Completed {done} out of {total} sentences",
    "stuck": "Can't think of anything? You can press the button below to get a different word. "
    "Don't worry, you can press it as often as you want to.",
    "skip": "A different word, please!",
    "question": "Can you write a sentence where the word {word} is used in such a way that both "
    "of these meanings are plausible interpretations?",
    "placeholder": "Write your sentence here.",
}
ENDING_UI = {
    "progress": "Finished Samples: {done}/{total}",
    "read": "Read the first four sentences of this short story.",
    "intended": "In this story, the intended meaning of {word} is:",
    "write": "Write an ending sentence for the story WITHOUT using the word {word} again. Make "
    "sure that the intended meaning comes across as the most plausible meaning!",
    "placeholder": "Write your ending sentence here.",
    "comment": "(Optional) Space for you to add comments.",
    "definitions": "Show word definitions",
    # not in the paper (its Figure 3 shows the Back button, not what a written item says)
    "saved": "You have written this ending already. Change it and press Next to save the "
    "change, or press Next to keep it as it is.",
}

# Appendix B.2 (precontext) and B.1 (clean-up), word for word; {slots} are filled by
# ``prompts.render``. A changed text gets a new version id, never an edit of an old one.
PRECONTEXT_PROMPTS = {
    "ambistory-b2-precontext-v1": (
        "Take the following ambiguous sentence, which is the fourth sentence in a 5-sentence "
        "short text:\n\n{sentence}\n\nIn this sentence, the word {homonym} can mean either "
        '"{sense_1}" or "{sense_2}", depending on the context.\n\nThis sentence is the fourth '
        "sentence in a story (out of five total). Write the first three sentences of the "
        "story. The first three sentences should serve as an introduction to the story which "
        "explains the circumstances of the current situation. Try to use simple sentences. "
        "Avoid complicated structures, long sentences and unnecessary information.\n\n"
        "Importantly, the word's meaning is still rather ambiguous even with the context. Both "
        "meanings should still be equally as plausible.\n\nReturn these first three sentences, "
        "do not return anything else."
    ),
}
DEFAULT_PRECONTEXT_PROMPT = "ambistory-b2-precontext-v1"

CLEANUP_PROMPTS = {
    "ambistory-b1-sentence-v1": (
        "Correct the following sentence by fixing the following:\n\n"
        "- Fixing the spelling (e.g. fix typos, capitalize first letter, add punctuation at "
        "the end)\n"
        "- Fixing the grammar (if necessary)\n"
        '- If the sentence is in direct speech (e.g. contains the word "you"), rewrite it to '
        "be in third person.\n"
        "- DO NOT CHANGE ANYTHING ELSE. Word choices etc must remain authentic to the "
        "original.\n\n"
        "The sentence is: {sentence}\n\n"
        "Don't return anything other than the corrected sentence."
    ),
    "ambistory-b1-ending-v1": (
        "Correct the following sentence by fixing the following:\n\n"
        "- Fixing the spelling (e.g. fix typos, capitalize first letter, add punctuation at "
        "the end)\n"
        "- Fixing the grammar (if necessary)\n"
        '- The sentence follows this sentence: "{sentence}" and should flow coherently.\n'
        "- No other stylistic changes are allowed.\n\n"
        "The sentence is: {ending}\n\n"
        "Don't return anything other than the corrected sentence. If no changes are "
        "necessary, just return the original sentence again."
    ),
}
SENTENCE_CLEANUP_PROMPT = "ambistory-b1-sentence-v1"
ENDING_CLEANUP_PROMPT = "ambistory-b1-ending-v1"

# Example sentences for senses. The paper showed writers "two example sentences, generated
# with GPT-4o" (section 3.2) but does not give that prompt (Appendix B has B.1-B.3 only), so
# this one is the site's own, written in the style of B.1/B.2 and versioned like them; the
# other sense of the pair is named so that the example leaves no doubt between the two.
EXAMPLE_PROMPTS = {
    "ambisite-sense-example-v1": (
        'Write one short example sentence in which the word "{homonym}" has the following '
        'meaning: "{gloss}".\n\n'
        'The word "{homonym}" can also mean "{other_gloss}". The sentence should make clear '
        "that this other meaning is not intended.\n\n"
        'Use the word "{homonym}" exactly once, written exactly like this. Use simple words '
        "and a simple sentence structure.\n\n"
        "Return only the sentence, do not return anything else."
    ),
}
DEFAULT_EXAMPLE_PROMPT = "ambisite-sense-example-v1"
