"""Ending effects per setup: how far each ending moves each sense's mean (section 4.2).

For a setup with senses A and B, the open-ended story and endings E1 and E2:

* ``shift``: |mean(E, s) - mean(open, s)| for each ending E and sense s (the paper: 0.80 on
  average), and
* ``contrast``: |mean(E1, s) - mean(E2, s)| averaged over the two senses (the paper: 1.18).

An ending pair *fails to separate the senses* when both endings favour the same sense (or
neither favours one); those setups come first, then the smallest contrast.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from django.db.models import QuerySet

from annotations.models import Sample, Setup

from .selectors import IS_OPEN


@dataclass
class SetupEffect:
    setup_id: int
    homonym: str
    senses: list[int]
    open_means: list[float | None]
    ending_means: list[list[float | None]]  # per ending, per sense
    shifts: list[list[float | None]]  # per ending, per sense
    contrast: float | None
    separates: bool

    @property
    def mean_shift(self) -> float | None:
        values = [v for row in self.shifts for v in row if v is not None]
        return statistics.fmean(values) if values else None


def _favoured(means: list[float | None]) -> int:
    if None in means or means[0] == means[1]:
        return 0
    return 1 if means[0] > means[1] else -1


def _effect(setup_id: int, homonym: str, cells: dict) -> SetupEffect | None:
    senses = sorted({sense for (_, sense) in cells})
    opens = sorted({story for (story, _), v in cells.items() if v[1]})
    endings = sorted({story for (story, _), v in cells.items() if not v[1]})
    if len(senses) != 2 or len(opens) != 1 or len(endings) != 2:
        return None  # not a complete AmbiStory setup in this sample set

    def mean(story, sense):
        return cells.get((story, sense), (None, None))[0]

    open_means = [mean(opens[0], s) for s in senses]
    ending_means = [[mean(e, s) for s in senses] for e in endings]
    shifts = [
        [None if m is None or o is None else abs(m - o) for m, o in zip(row, open_means)]
        for row in ending_means
    ]
    diffs = [abs(a - b) for a, b in zip(*ending_means) if a is not None and b is not None]
    favoured = [_favoured(row) for row in ending_means]
    return SetupEffect(
        setup_id,
        homonym,
        senses,
        open_means,
        ending_means,
        shifts,
        statistics.fmean(diffs) if diffs else None,
        separates=favoured[0] != 0 and favoured[1] != 0 and favoured[0] != favoured[1],
    )


def ending_effects(samples: QuerySet[Sample], *, include_excluded: bool = False) -> list:
    """Every complete setup among the samples, non-separating ones first (2 queries)."""
    rows = (
        samples.with_stats(include_excluded=include_excluded)
        .annotate(is_open=IS_OPEN)
        .order_by()
        .values_list("story__setup_id", "story_id", "sense_id", "is_open", "mean")
    )
    by_setup: dict[int, dict] = {}
    for setup_id, story, sense, is_open, mean in rows:
        by_setup.setdefault(setup_id, {})[(story, sense)] = (mean, bool(is_open))
    forms = dict(Setup.objects.filter(pk__in=by_setup).values_list("id", "homonym__form"))
    effects = [_effect(sid, forms.get(sid, ""), cells) for sid, cells in by_setup.items()]
    effects = [e for e in effects if e is not None]
    return sorted(effects, key=lambda e: (e.separates, e.contrast if e.contrast is not None else 9))


def summary(effects: list[SetupEffect]) -> dict:
    """Mean (SD) of the shifts and contrasts, as the paper reports them."""
    shifts = [v for e in effects for row in e.shifts for v in row if v is not None]
    contrasts = [
        abs(a - b)
        for e in effects
        for a, b in zip(*e.ending_means)
        if a is not None and b is not None
    ]

    def describe(values):
        if len(values) < 2:
            return None
        return {"mean": statistics.fmean(values), "sd": statistics.stdev(values), "n": len(values)}

    return {
        "shift": describe(shifts),
        "contrast": describe(contrasts),
        "failing": sum(not e.separates for e in effects),
        "setups": len(effects),
    }
