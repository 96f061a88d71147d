"""Independent reference computations shared by the metrics tests."""

from __future__ import annotations

import numpy as np

from predictions.evaluation import score_lists


def random_study(seed: int, n_samples: int = 60, per_sample: int = 5, n_raters: int = 12):
    """Ratings as ``(sample, rater, score)``, each sample by ``per_sample`` distinct raters."""
    rng = np.random.default_rng(seed)
    return [
        (s, int(r), int(rng.integers(1, 6)))
        for s in range(n_samples)
        for r in rng.choice(n_raters, per_sample, replace=False)
    ]


def official_per_rater(rows, copies=lambda sample: 1) -> dict:
    """For every rater, official ``score_lists`` against the others of each sample they
    rated, each sample counted ``copies(sample)`` times (None where nothing is left)."""
    by_sample: dict = {}
    for s, r, v in rows:
        by_sample.setdefault(s, {})[r] = v
    out = {}
    for rater in sorted({r for _, r, _ in rows}):
        labels, preds = [], []
        for s, ratings in by_sample.items():
            if rater in ratings and len(ratings) > 1:
                others = [v for r, v in ratings.items() if r != rater]
                labels += [others] * copies(s)
                preds += [ratings[rater]] * copies(s)
        out[rater] = score_lists(labels, preds) if labels else None
    return out
