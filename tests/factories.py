"""Plain factory functions for tests: small hand-made AmbiStory data."""

from __future__ import annotations

import statistics


def ambistory_sample(
    sid: str,
    *,
    homonym: str = "bank",
    meaning: str = "a financial institution",
    example: str = "She went to the bank to deposit money.",
    precontext: str = "Tom needed cash. He walked into town. The sun was shining.",
    sentence: str = "He stopped at the bank.",
    ending: str = "",
    choices: list[int] | None = None,
    sample_id: str | None = None,
) -> dict:
    """One sample as it appears in an AmbiStory JSON file."""
    choices = choices if choices is not None else [4, 5, 3, 4, 4]
    return {
        "homonym": homonym,
        "judged_meaning": meaning,
        "precontext": precontext,
        "sentence": sentence,
        "ending": ending,
        "choices": choices,
        "average": sum(choices) / len(choices),
        "stdev": statistics.stdev(choices),
        "nonsensical": [False] * len(choices),
        "sample_id": sample_id or f"s{sid}",
        "example_sentence": example,
    }


RIVER = ("sloping land beside a body of water", "They sat on the bank of the river.")
MEANINGS = (("a financial institution", "She went to the bank to deposit money."), RIVER)
ENDINGS = ("", "He counted the money he withdrew.", "He watched the ducks swim past.")


def ambistory_setup(
    first_id: int,
    *,
    homonym: str = "bank",
    sentence: str | None = None,
    meanings: tuple[tuple[str, str], ...] = MEANINGS,
):
    """A whole setup: 2 senses (meaning, example) x 3 story variants = 6 samples, ids
    first_id.."""
    samples = {}
    sid = first_id
    for ending in ENDINGS:
        for meaning, example in meanings:
            samples[str(sid)] = ambistory_sample(
                str(sid),
                homonym=homonym,
                meaning=meaning,
                example=example,
                ending=ending,
                sentence=sentence or f"He stopped at the {homonym}.",
                choices=[(sid % 5) + 1, 3, 4, 2, 5],
            )
            sid += 1
    return samples
