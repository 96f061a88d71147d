"""Ending effects per setup: how far each ending moves each sense's mean (section 4.2).

For a setup with senses A and B, the open-ended story and endings E1 and E2:

* ``shift``: |mean(E, s) - mean(open, s)| for each ending E and sense s (the paper: 0.80 on
  average), and
* ``contrast``: |mean(E1, s) - mean(E2, s)| averaged over the two senses (the paper: 1.18).

An ending pair *fails to separate the senses* when both endings favour the same sense (or
neither favours one); those setups come first, then the smallest contrast, then by id.
Every setup is computed at once in numpy from per-sample score counts; the rows of a page
become :class:`SetupEffect` objects.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

import numpy as np
from django.db.models import QuerySet

from annotations.models import Rating, Sample, Setup

from .selectors import lookup, sample_stats


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


def _values(array: np.ndarray) -> list:
    """Nested lists of floats with NaN as None."""
    return [_values(a) for a in array] if array.ndim > 1 else [_none(v) for v in array]


def _none(value: float) -> float | None:
    return None if np.isnan(value) else float(value)


def _per_setup(
    setup: np.ndarray, other: np.ndarray
) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """Distinct ``(setup, other)`` pairs in order, and how many each setup has."""
    pairs = np.unique(np.column_stack([setup, other]), axis=0) if len(setup) else np.zeros((0, 2))
    return pairs, np.unique(pairs[:, 0], return_counts=True)


class EndingEffects:
    """The complete setups (2 senses x open-ended + 2 endings) among some samples, in their
    order, as a sequence for a paginator: a slice builds only its rows (and looks up their
    homonyms, one query)."""

    def __init__(self, setup, story, sense, is_open, mean):
        senses, (with_senses, n_senses) = _per_setup(setup, sense)
        opens, (with_open, n_open) = _per_setup(setup[is_open], story[is_open])
        ends, (with_end, n_end) = _per_setup(setup[~is_open], story[~is_open])
        ids = np.intersect1d(with_senses[n_senses == 2], with_open[n_open == 1])
        self.setup_ids = np.intersect1d(ids, with_end[n_end == 2]).astype(np.int64)
        first = [np.searchsorted(pairs[:, 0], self.setup_ids) for pairs in (senses, opens, ends)]
        self.senses = senses[first[0][:, None] + [0, 1], 1].astype(np.int64)  # ascending
        open_story = opens[first[1], 1].astype(np.int64)
        endings = ends[first[2][:, None] + [0, 1], 1].astype(np.int64)
        width = int(sense.max()) + 1 if len(sense) else 1
        order = np.argsort(story * width + sense)
        keys, cell_mean = (story * width + sense)[order], mean[order]

        def cell_means(stories: np.ndarray) -> np.ndarray:  # (setups, sense); NaN: no mean
            if not len(keys):
                return np.full(self.senses.shape, np.nan)
            row, found = lookup(keys, stories[:, None] * width + self.senses)
            return np.where(found, cell_mean[row], np.nan)

        self.open_means = cell_means(open_story)
        self.ending_means = np.stack([cell_means(endings[:, 0]), cell_means(endings[:, 1])], 1)
        self.shifts = np.abs(self.ending_means - self.open_means[:, None, :])
        diffs = np.abs(self.ending_means[:, 0] - self.ending_means[:, 1])  # per sense
        known = (~np.isnan(diffs)).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            self.contrast = np.where(known > 0, np.nansum(diffs, axis=1) / known, np.nan)
            # +1 / -1: the ending favours the first / second sense; 0: neither (or unknown)
            favoured = np.nan_to_num(
                np.sign(self.ending_means[:, :, 0] - self.ending_means[:, :, 1])
            )
        self.separates = (favoured[:, 0] != 0) & (favoured[:, 0] == -favoured[:, 1])
        contrast_key = np.where(np.isnan(self.contrast), 9, self.contrast)
        self.order = np.lexsort((self.setup_ids, contrast_key, self.separates))

    def __len__(self) -> int:
        return len(self.order)

    def __getitem__(self, index):
        if not isinstance(index, slice):
            return self[index : index + 1][0]
        rows = self.order[index]
        forms = dict(
            Setup.objects.filter(pk__in=self.setup_ids[rows].tolist()).values_list(
                "id", "homonym__form"
            )
        )
        return [
            SetupEffect(
                setup_id=int(self.setup_ids[k]),
                homonym=forms.get(int(self.setup_ids[k]), ""),
                senses=self.senses[k].tolist(),
                open_means=_values(self.open_means[k]),
                ending_means=_values(self.ending_means[k]),
                shifts=_values(self.shifts[k]),
                contrast=_none(self.contrast[k]),
                separates=bool(self.separates[k]),
            )
            for k in rows.tolist()
        ]

    def summary(self) -> dict:
        """Mean (SD) of the shifts and contrasts, as the paper reports them."""
        diffs = np.abs(self.ending_means[:, 0] - self.ending_means[:, 1])
        return {
            "shift": _describe(self.shifts),
            "contrast": _describe(diffs),
            "failing": int((~self.separates).sum()),
            "setups": len(self),
        }


def _describe(values: np.ndarray) -> dict | None:
    values = values[~np.isnan(values)]
    if len(values) < 2:
        return None
    return {"mean": float(values.mean()), "sd": float(values.std(ddof=1)), "n": len(values)}


def ending_effects(samples: QuerySet[Sample], *, ratings: QuerySet[Rating]) -> EndingEffects:
    """Every complete setup among the samples, non-separating ones first (2 queries, then
    1 per page), from ``ratings`` (the page's scope)."""
    columns = ("id", "story__setup_id", "story_id", "sense_id", "open")
    stats = sample_stats(samples, ratings=ratings, columns=columns)
    c = stats.columns
    return EndingEffects(
        c["story__setup_id"], c["story_id"], c["sense_id"], c["open"].astype(bool), stats.mean
    )
