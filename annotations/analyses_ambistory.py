"""The AmbiStory paper's (Gehring & Roth, SemEval-2026 Task 5) descriptive analyses as pure
functions (no Django) over samples in the published JSON shape.

- :func:`section_lengths`: Table 2, average length in words of each story section, each
  distinct text counted once (a setup's precontext and sentence are shared by its six
  samples, an ending by its two).
- :func:`dataset_counts`: section 4.1's counts (samples, setups, homonym forms, sense pairs,
  sentences per form, the most frequent homonyms).
- :func:`sd_comparison`: section 5.3.2's comparison of the SD of the human ratings on
  open-ended against ended stories, by a Wilcoxon rank-sum test as the paper names it.

The paper's sense-frequency correlation (section 4.2, SemCor frequencies) needs SemCor or
WordNet, which the site does not ship and cannot fetch offline, so it is not reproduced.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

PAPER_TABLE2 = {"precontext": 31.5, "sentence": 9.24, "ending": 13.5, "story": 49.77}
PAPER_COUNTS = {
    "samples": 3798,
    "setups": 633,
    "homonym_forms": 361,
    "sense_pairs": 411,
    "sentences_per_form": 1.75,
}
PAPER_TOP_HOMONYMS = {"change": 10, "lousy": 9, "shot": 7, "bars": 7}


@dataclass(frozen=True)
class StorySample:
    homonym: str
    judged_meaning: str
    precontext: str
    sentence: str
    ending: str
    stdev: float

    @property
    def setup(self) -> tuple[str, str, str]:
        return (self.homonym, self.precontext, self.sentence)


def samples_from_json(records: Iterable[Mapping]) -> list[StorySample]:
    """The published files' records (dev.json, train.json values); a record without a
    needed field is an error naming its sample id."""
    out = []
    for record in records:
        try:
            out.append(
                StorySample(
                    str(record["homonym"]),
                    str(record["judged_meaning"]),
                    str(record["precontext"]),
                    str(record["sentence"]),
                    str(record.get("ending") or ""),
                    float(record["stdev"]),
                )
            )
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"sample {record.get('sample_id', '?')}: {error!r}") from error
    return out


def words(text: str) -> int:
    return len(text.split())


def section_lengths(samples: Sequence[StorySample]) -> dict[str, float]:
    """Table 2: mean words per distinct precontext, ambiguous sentence, ending and story
    (open-ended stories included, as the paper's 'Entire Story')."""
    setups = {s.setup for s in samples}
    endings = {(s.setup, s.ending) for s in samples if s.ending}
    stories = {(s.setup, s.ending) for s in samples}
    if not setups:
        raise ValueError("no samples")
    return {
        "precontext": float(np.mean([words(p) for _, p, _ in setups])),
        "sentence": float(np.mean([words(t) for _, _, t in setups])),
        "ending": float(np.mean([words(e) for _, e in endings])) if endings else 0.0,
        "story": float(np.mean([words(f"{p} {t} {e}") for (_, p, t), e in stories])),
    }


def dataset_counts(samples: Sequence[StorySample], *, top: int = 4) -> dict:
    """Section 4.1: how many samples, setups, homonym forms and sense pairs; ambiguous
    sentences per form; the forms with the most ambiguous sentences."""
    setups = {s.setup for s in samples}
    senses: dict[tuple, set[str]] = {}
    for s in samples:
        senses.setdefault(s.setup, set()).add(s.judged_meaning)
    pairs = {(h, frozenset(m)) for (h, _, _), m in senses.items()}
    per_form = Counter(h for h, _, _ in setups)
    return {
        "samples": len(samples),
        "setups": len(setups),
        "homonym_forms": len(per_form),
        "sense_pairs": len(pairs),
        "sentences_per_form": len(setups) / len(per_form) if per_form else 0.0,
        "top_homonyms": per_form.most_common(top),
    }


@dataclass(frozen=True)
class SdComparison:
    n_open: int
    n_ended: int
    mean_open: float
    mean_ended: float
    median_open: float
    median_ended: float
    statistic: float
    p: float
    histogram_open: list[int]
    histogram_ended: list[int]
    edges: list[float]


SD_EDGES = [i * 0.25 for i in range(0, 10)]  # SDs of 1-5 ratings lie in 0-2.2


def sd_comparison(samples: Sequence[StorySample]) -> SdComparison:
    """Wilcoxon rank-sum test (scipy.stats.ranksums, two-sided, normal approximation) of the
    per-sample rating SDs, open-ended stories against ended ones."""
    from scipy.stats import ranksums

    open_ = np.array([s.stdev for s in samples if not s.ending], dtype=float)
    ended = np.array([s.stdev for s in samples if s.ending], dtype=float)
    if len(open_) < 2 or len(ended) < 2:
        raise ValueError("the comparison needs open-ended and ended samples (2 or more each)")
    result = ranksums(open_, ended)
    edges = np.array(SD_EDGES)
    return SdComparison(
        len(open_),
        len(ended),
        float(open_.mean()),
        float(ended.mean()),
        float(np.median(open_)),
        float(np.median(ended)),
        float(result.statistic),
        float(result.pvalue),
        [int(c) for c in np.histogram(open_, bins=edges)[0]],
        [int(c) for c in np.histogram(ended, bins=edges)[0]],
        [float(e) for e in edges],
    )
