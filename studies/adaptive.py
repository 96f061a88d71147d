"""Adaptive allocation's rule, pure (no Django): which samples get one more rating.

Each sample starts with the study's minimum number of ratings. Once every wanted rating of a
sample is in, its precision is the width of the 95% t interval of its mean,
``2 * t(0.975, n - 1) * SD / sqrt(n)`` (SD: the sample SD of its ratings). A growth round
gives one more rating to the samples whose interval is widest, never above the maximum, while
their width exceeds the target and the rating budget lasts. The site (``assignment``) and the
replay simulation (``bench/adaptive_sim.py``) call the same :func:`grow`.

Two orders (``Study.adaptive_rule``): ``widest`` (the default) grows the widest interval first,
which evens out SD/sqrt(n) and so allots about n ~ SD^2; ``variance`` grows first the sample whose
next rating removes the most variance of its mean, SD^2/(n(n+1)), which allots about n ~ SD, the
allocation that minimises the summed variance of the means for a fixed budget (Neyman). Its SD is
shrunk towards the pooled SD (:func:`shrunk_sd`) because an SD from 3 ratings is too noisy to
steer by.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

# Two-sided 95% quantiles of Student's t for 1..30 degrees of freedom; beyond, the normal's.
_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip

# Three equal ratings say little about a 1-5 judgment: the SD counts as at least this much
# when deciding growth (bench/adaptive_sim.py measured 0 against 0.5).
SD_FLOOR = 0.5

# Pseudo-degrees of freedom of the pooled SD in the shrinkage (:func:`shrunk_sd`): with 3
# ratings (2 df) the pooled SD weighs twice the sample's own.
PRIOR_DF = 4

WIDEST = "widest"
VARIANCE = "variance"

RULE = (
    "Every sample starts with the minimum number of ratings. Once all of a sample's ratings "
    "are in, it gets one more while the 95% confidence interval of its mean, "
    "2 × t(0.975, n−1) × SD / √n with the SD taken as at least 0.5, is wider than the "
    "target; the widest intervals go first, never above the maximum per sample nor the "
    "rating budget."
)

VARIANCE_RULE = (
    "Every sample starts with the minimum number of ratings. Once all of a sample's ratings "
    "are in, it gets one more while its 95% interval (as above) is wider than the target; "
    "the samples whose next rating removes the most variance of their mean, s² / (n(n+1)), "
    "go first, where s² = ((n−1) × SD² + 4 × pooled SD²) / (n−1+4) shrinks the sample's SD "
    "towards the SD pooled over all samples. This allots ratings in proportion to the SD "
    "(n ~ SD), never above the maximum per sample nor the rating budget."
)


# What the choice buys and costs, measured by bench/adaptive_sim.py (AmbiStory train + dev, 20
# replays on shared draws, minimum 3, maximum 9; docs/studies.md has the table).
TRADEOFF = (
    "Measured on AmbiStory (bench/adaptive_sim.py, same budget, same draws): neither rule ranks "
    "the samples better than giving every sample the same number of ratings. Widest interval "
    "first narrows the mean 95% interval most (budget 6 per sample: 1.40 against 1.68) but "
    "loses Spearman (−0.003) and covers the true mean less often (83.6% against 88.6%). "
    "Variance-optimal narrows less (1.49), keeps the fixed Spearman (−0.0001) and covers "
    "86.4%. Both intervals cover less than their nominal 95%: part of the narrowing is "
    "stopping early on samples whose first ratings happen to agree."
)


def rule_text(rule: str) -> str:
    """The rule of ``rule`` (``widest`` or ``variance``) in words, for the study page."""
    return VARIANCE_RULE if rule == VARIANCE else RULE


def bounds_problem(*, ratings_per_sample: int, max_ratings_per_sample: int) -> str | None:
    """Why adaptive allocation's bounds contradict each other, or None (the study form names
    the field; opening refuses the study with the same words)."""
    if max_ratings_per_sample < ratings_per_sample:
        return "The maximum ratings per sample must be at least the ratings per sample."
    return None


def t975(df: int) -> float:
    if df < 1:
        return math.inf
    return _T975[df - 1] if df <= len(_T975) else 1.96


def interval_width(scores: Sequence[float], sd_floor: float = 0.0) -> float:
    """Width of the 95% t interval of the mean of ``scores`` (inf with fewer than two),
    taking the SD as at least ``sd_floor``."""
    n = len(scores)
    if n < 2:
        return math.inf
    mean = sum(scores) / n
    sd = math.sqrt(sum((s - mean) ** 2 for s in scores) / (n - 1))
    return width_for(n, sd, sd_floor)


def _sum_sq(scores: Sequence[float]) -> float:
    mean = sum(scores) / len(scores)
    return sum((s - mean) ** 2 for s in scores)


def pooled_sd(samples: Sequence[Sequence[float]]) -> float:
    """The SD pooled over ``samples`` (each sample's squared deviations from its own mean over
    the summed degrees of freedom); 0 when no sample has two ratings."""
    rated = [s for s in samples if len(s) > 1]
    df = sum(len(s) - 1 for s in rated)
    return math.sqrt(sum(_sum_sq(s) for s in rated) / df) if df else 0.0


def shrunk_sd(scores: Sequence[float], pooled: float, prior_df: float = PRIOR_DF) -> float:
    """The SD of ``scores`` shrunk towards ``pooled``: sqrt(((n-1) SD^2 + k pooled^2) / (n-1+k))
    with k = ``prior_df`` (the pooled SD counts as k degrees of freedom; the conjugate
    scaled-inverse-chi^2 prior's posterior mean of the variance, up to its df correction)."""
    df = max(len(scores) - 1, 0)
    own = _sum_sq(scores) if df else 0.0
    if df + prior_df <= 0:
        return 0.0
    return math.sqrt((own + prior_df * pooled**2) / (df + prior_df))


def variance_gain(scores: Sequence[float], pooled: float, prior_df: float = PRIOR_DF) -> float:
    """How much one more rating lowers the variance of the mean of ``scores``: s^2/n - s^2/(n+1)
    = s^2/(n(n+1)) with s the shrunk SD. Growing the largest gain first allots n ~ s."""
    n = len(scores)
    if n == 0:
        return math.inf
    return shrunk_sd(scores, pooled, prior_df) ** 2 / (n * (n + 1))


def width_for(n: int, sd: float, sd_floor: float = 0.0) -> float:
    """Width of the 95% t interval of a mean of ``n`` ratings whose SD is ``sd`` (taken as
    at least ``sd_floor``); inf with fewer than two ratings."""
    if n < 2:
        return math.inf
    return 2 * t975(n - 1) * max(sd, sd_floor) / math.sqrt(n)


def ratings_needed(
    sd: float, *, minimum: int, maximum: int, target_width: float, sd_floor: float = 0.0
) -> int:
    """How many ratings :func:`grow` gives a sample whose ratings keep the SD ``sd``: it
    grows while fewer than ``maximum`` and wider than ``target_width``, so the answer is
    the first count from ``minimum`` on whose interval is narrow enough, else the maximum
    (never below the minimum: every sample starts there)."""
    for n in range(minimum, max(minimum, maximum)):
        if width_for(n, sd, sd_floor) <= target_width:
            return n
    return max(minimum, maximum)


@dataclass(frozen=True)
class SampleState:
    """One sample as growth sees it: its ratings so far, how many ratings it is allotted
    (``wanted``: slots that are not void) and how many of those are still to come."""

    key: Hashable
    group: Hashable  # the setup: a batch holds at most one sample per group
    scores: tuple[float, ...]
    wanted: int
    pending: int


def _priority(
    states: Sequence[SampleState], rule: str, sd_floor: float
) -> Callable[[SampleState], float]:
    """Growth order of ``rule``: the larger, the sooner a sample gets its next rating."""
    if rule == WIDEST:
        return lambda s: interval_width(s.scores, sd_floor)
    if rule != VARIANCE:
        raise ValueError(f"unknown adaptive rule {rule!r} (expected {WIDEST!r} or {VARIANCE!r})")
    pooled = pooled_sd([s.scores for s in states])
    return lambda s: variance_gain(s.scores, pooled)


def grow(
    states: Sequence[SampleState],
    *,
    maximum: int,
    target_width: float,
    budget_left: int,
    batch_groups: int,
    free_groups: frozenset = frozenset(),
    sd_floor: float = 0.0,
    rule: str = WIDEST,
) -> list[Hashable]:
    """The samples that get one more rating now (one each), widest interval first (``rule``
    ``variance``: largest :func:`variance_gain` first, SDs shrunk towards the pooled SD).

    Eligible: every allotted rating is in, fewer than ``maximum`` allotted, width above
    ``target_width``. A round takes the first half of the eligible samples (at least enough
    for one batch), at most ``budget_left``; it then adds eligible samples of other groups
    until, with the groups that still have free places (``free_groups``), one batch of
    ``batch_groups`` distinct groups can be formed. When it cannot, nothing is added (a
    place no batch can ever use would strand the budget)."""
    eligible = [
        s
        for s in states
        if s.pending == 0
        and s.wanted < maximum
        and interval_width(s.scores, sd_floor) > target_width
    ]
    priority = _priority(states, rule, sd_floor)
    eligible.sort(key=lambda s: (-priority(s), str(s.key)))
    take = min(budget_left, max(batch_groups, math.ceil(len(eligible) / 2)))
    picks = eligible[:take]
    groups = set(free_groups) | {s.group for s in picks}
    for state in eligible[take:]:
        if len(groups) >= batch_groups or len(picks) >= budget_left:
            break
        if state.group not in groups:
            picks.append(state)
            groups.add(state.group)
    if len(groups) < batch_groups:
        return []
    return [s.key for s in picks]


def sd_reaching_target(n: int, target_width: float) -> float:
    """The largest SD whose interval over ``n`` ratings is at most ``target_width`` wide."""
    return 0.0 if n < 2 else target_width * math.sqrt(n) / (2 * t975(n - 1))


@dataclass(frozen=True)
class Outlook:
    """What adaptive settings imply, in the numbers :func:`grow` works with: how many
    ratings a sample gets for a given agreement (:func:`ratings_needed`), the rating budget,
    and, from known SDs of the samples, how many ratings to expect."""

    minimum: int
    maximum: int
    target_width: float
    n_samples: int
    budget: int
    agreed: int  # ratings a sample gets when all its raters agree (SD 0)
    sd_limit: float  # samples with a larger SD stop at the maximum, still too wide
    expected_per_sample: float | None  # mean over the known SDs, None when none is known
    expected_total: int | None  # that many for every sample, within the budget

    def sentences(self) -> list[str]:
        """The outlook in plain words, for the study form and page."""
        if self.sd_limit < SD_FLOOR:
            first = (
                f"Every sample starts with {self.minimum} ratings and gets {self.maximum}: the "
                f"SD counts as at least {SD_FLOOR:g}, so no interval of {self.maximum} ratings "
                f"is as narrow as the target {self.target_width:g}, even when all raters agree."
            )
        elif self.agreed == self.minimum:
            first = (
                f"Every sample starts with {self.minimum} ratings; a sample whose raters all "
                "agree gets no more."
            )
        else:
            first = (
                f"Every sample starts with {self.minimum} ratings. Even a sample whose raters "
                f"all agree gets {self.agreed}: the SD counts as at least {SD_FLOOR:g}, and its "
                f"95% interval stays wider than the target width {self.target_width:g} until "
                f"it has {self.agreed} ratings."
            )
        words = [first]
        if SD_FLOOR <= self.sd_limit:
            words.append(
                f"Only samples whose ratings have an SD of at most {self.sd_limit:.2f} reach "
                f"the target; the others stop at {self.maximum} ratings, their interval "
                "still wider."
            )
        if self.n_samples:
            words.append(
                f"Budget: at most {self.budget} ratings in all for {self.n_samples} samples "
                f"(at least {self.n_samples * self.agreed} if every sample's raters agree, "
                f"{self.n_samples * self.maximum} if none reaches the target)."
            )
        else:
            words.append(
                f"Budget: at most {self.maximum} ratings per sample in all, or the rating "
                "budget when it is smaller (choose the samples to see the total)."
            )
        if self.expected_per_sample is not None and self.expected_total is not None:
            words.append(
                f"Expected from the ratings these samples already have: about "
                f"{self.expected_per_sample:.1f} ratings per sample, {self.expected_total} "
                "in all."
            )
        if self.n_samples and self.budget < self.n_samples * self.agreed:
            words.append(
                "The budget runs out before every sample gets the ratings it needs even when "
                "its raters agree; the widest intervals get them first."
            )
        return words


def outlook(
    *,
    minimum: int,
    maximum: int,
    target_width: float,
    n_samples: int,
    budget: int,
    sds: Sequence[float] = (),
) -> Outlook:
    """The :class:`Outlook` of adaptive settings; ``sds``: the samples' known rating SDs."""

    def needed(sd: float) -> int:
        return ratings_needed(
            sd, minimum=minimum, maximum=maximum, target_width=target_width, sd_floor=SD_FLOOR
        )

    expected = [needed(sd) for sd in sds]
    per_sample = sum(expected) / len(expected) if expected else None
    total = None if per_sample is None else min(budget, round(per_sample * n_samples))
    return Outlook(
        minimum=minimum,
        maximum=max(minimum, maximum),
        target_width=target_width,
        n_samples=n_samples,
        budget=budget,
        agreed=needed(0.0),
        sd_limit=sd_reaching_target(max(minimum, maximum), target_width),
        expected_per_sample=per_sample,
        expected_total=total,
    )
