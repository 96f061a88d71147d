"""Agreement figures as metric objects: what each number is, how to show it, its value."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ambisite.finite import undefined
from annotations import metrics_bootstrap as metrics
from annotations.metrics import RatingTable

from .cache import cached
from .forms import SampleFilterForm
from .selectors import groups_are_known, rater_lists, rating_table

N_BOOT = 1000


@dataclass(frozen=True)
class Metric:
    """One agreement figure: a key into :class:`annotations.metrics_bootstrap.Agreement`."""

    key: str
    title: str
    help: str
    group: str = "agreement"

    def value(self, result: metrics.Agreement) -> float | None:
        value = result.values.get(self.key)
        return None if undefined(value) else value

    def interval(self, result: metrics.Agreement) -> tuple[float, float] | None:
        low, high = result.intervals.get(self.key, (math.nan, math.nan))
        return None if undefined(low) or undefined(high) else (low, high)

    def as_dict(self, result: metrics.Agreement) -> dict:
        return {
            "key": self.key,
            "title": self.title,
            "help": self.help,
            "group": self.group,
            "value": self.value(result),
            "interval": self.interval(result),
            # replicates where the figure is defined, of those drawn (the interval's basis)
            "replicates": {
                "defined": result.defined.get(self.key, 0),
                "drawn": result.drawn.get(self.key, 0),
            },
        }


METRICS = [
    Metric("alpha", "Krippendorff's α (interval)", "1 = perfect agreement, 0 = chance."),
    Metric("mean_sd", "Mean SD per sample", "Average sample SD of each sample's ratings."),
    Metric(
        "best_accuracy",
        "Human upper bound: accuracy (best annotator per group)",
        "The AmbiStory paper's upper bound (§5.1): each annotator is scored against the other "
        "annotators who received the same samples; in each group the highest-scoring "
        "annotator's accuracy (share of their ratings inside the others' band, official "
        "rule), averaged over groups.",
        "upper bound",
    ),
    Metric(
        "best_spearman",
        "Human upper bound: Spearman (best annotator per group)",
        "As above with the official Spearman (the annotator's ratings against the others' "
        "means); the best annotator of each group is picked for each metric separately.",
        "upper bound",
    ),
    Metric(
        "average_accuracy",
        "Average annotator: accuracy against the others",
        "Not an upper bound: what a typical single annotator achieves. Every annotator's "
        "accuracy against the others of each sample, averaged with each annotator weighted "
        "by the samples it rated (the share of all ratings inside the others' band).",
        "average annotator",
    ),
    Metric(
        "average_spearman",
        "Average annotator: Spearman against the others' means",
        "Not an upper bound: every annotator's Spearman against the others' means, averaged "
        "with each annotator weighted by the samples it rated.",
        "average annotator",
    ),
    Metric(
        "loo_spearman",
        "Leave-one-annotator-out Spearman",
        "RAW-C: each annotator vs the mean of the others on the items they rated, averaged "
        "with each annotator weighted by those items (by construction equal to the "
        "average-annotator Spearman).",
    ),
    Metric(
        "split_half",
        "Split-half reliability of item means",
        "Ratings of each sample split at random in two halves; Pearson r of the half means "
        "across samples, Spearman-Brown corrected; the mean over many random splits.",
    ),
]


@dataclass
class ScopeTable:
    """The scope's ratings as coded arrays, with their raters' lists (when known)."""

    known: bool
    of_rater: dict[int, int]
    names: dict[int, str]
    table: RatingTable


def _scope_table(form: SampleFilterForm) -> ScopeTable:
    ratings = form.ratings()
    known = groups_are_known(ratings)
    of_rater, names = rater_lists(ratings) if known else ({}, {})
    return ScopeTable(known, of_rater, names, rating_table(ratings, form.samples(), of_rater))


def scope_table(form: SampleFilterForm) -> ScopeTable:
    """The costly part of the agreement figures (the scope's ratings read and coded), cached
    once per scope version and shared by the agreement page and its intervals (the page
    fetches ``agreement.json``), whatever the bootstrap size and seed."""
    return cached("rating-table", form, lambda: _scope_table(form), reads_runs=False)


def agreement_for(form: SampleFilterForm, *, n_boot: int = 0, seed: int = 0) -> dict:
    """Figures for the filtered samples; ``n_boot=0`` skips the intervals (fast page)."""
    scoped = scope_table(form)
    known, of_rater, names, table = scoped.known, scoped.of_rater, scoped.names, scoped.table
    if len(table) == 0:
        return {"empty": True, "metrics": [], "n_ratings": 0}
    result = metrics.agreement(table, groups_known=known, n_boot=n_boot, seed=seed)
    if table.group is not None:  # group codes follow the list ids in order
        labels = [names[k] for k in sorted({of_rater[r] for r in of_rater})]
        for row in result.groups:
            row["label"] = labels[row["group"]]
    shown = [m for m in METRICS if m.key in result.values]
    return {
        "empty": False,
        "metrics": [m.as_dict(result) for m in shown],
        "n_ratings": result.n_ratings,
        "n_samples": result.n_samples,
        "n_setups": result.n_setups,
        "n_boot": result.n_boot if n_boot else 0,
        "n_boot_annotators": result.n_boot_annotators,
        "groups_known": result.groups_known,
        "n_groups": result.n_groups,
        "loo": result.loo,
        "split_half": result.split_half,
        "seed": seed,
        "groups_by_design": result.groups_by_design,
        "groups": result.groups,
        "n_small_groups": result.n_small_groups,
    }
