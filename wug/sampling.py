"""Which use pairs to judge next, as the DWUG data sets were built. Pure: no Django.

Round 1 judges random pairs, spread so that every use appears about equally often. Each
later round reads the current clusters and samples (a) pairs *within* clusters, to confirm
that a cluster holds together, and (b) pairs *across* clusters, one cluster pair at a time,
to find clusters that are one sense after all, always preferring uses with the fewest judged
pairs and never a pair judged before. Rounds go on until the graph is *connected enough*:
every use has at least ``min_degree`` judged pairs, and every two clusters of at least
``min_size`` uses have at least ``min_across`` judged pairs between them.

All draws come from a seeded generator: the same inputs give the same pairs.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from annotations.kinds import USE_PAIR, check_passes
from wug.graph import Judgment, judgments_by_pair, pair_key

Pair = tuple[str, str]


@dataclass(frozen=True)
class Criteria:
    """When the graph is connected enough (module docstring)."""

    min_degree: int = 2
    min_size: int = 2
    min_across: int = 1


def degrees(uses: Iterable[str], judged: Iterable[Pair]) -> Counter[str]:
    count: Counter[str] = Counter({u: 0 for u in uses})
    for a, b in judged:
        count[a] += 1
        count[b] += 1
    return count


def first_round(uses: Sequence[str], n_pairs: int, *, seed: int = 0) -> list[Pair]:
    """``n_pairs`` distinct random pairs; each draw pairs the two least-used uses among a
    shuffled order, so every use appears about ``2 n / len(uses)`` times."""
    rng = np.random.default_rng(seed)
    uses = sorted(uses)
    possible = len(uses) * (len(uses) - 1) // 2
    chosen: set[Pair] = set()
    load = Counter({u: 0 for u in uses})
    while len(chosen) < min(n_pairs, possible):
        order = [uses[i] for i in rng.permutation(len(uses))]
        order.sort(key=lambda u: load[u])  # stable: random among equals
        for a, b in combinations(order, 2):
            pair = pair_key(a, b)
            if pair not in chosen:
                chosen.add(pair)
                load[a] += 1
                load[b] += 1
                break
    return sorted(chosen)


def _clusters(labels: Mapping[str, int], uses: Sequence[str]) -> dict[int, list[str]]:
    """Clusters by label; uses without a label (no judged pair yet) are each their own."""
    out: dict[int, list[str]] = defaultdict(list)
    fresh = max(labels.values(), default=-1) + 1
    for use in sorted(uses):
        if use in labels:
            out[labels[use]].append(use)
        else:
            out[fresh].append(use)
            fresh += 1
    return dict(out)


def connected_enough(
    uses: Sequence[str], labels: Mapping[str, int], judged: Iterable[Pair], criteria: Criteria
) -> bool:
    judged = [pair_key(a, b) for a, b in judged]
    if any(d < criteria.min_degree for d in degrees(uses, judged).values()):
        return False
    return not _short_cluster_pairs(uses, labels, judged, criteria)


def _short_cluster_pairs(uses, labels, judged, criteria) -> list[tuple[int, int]]:
    clusters = _clusters(labels, uses)
    big = sorted(c for c, members in clusters.items() if len(members) >= criteria.min_size)
    of = {u: c for c, members in clusters.items() for u in members}
    across: Counter[tuple[int, int]] = Counter()
    for a, b in judged:
        if of[a] != of[b]:
            across[tuple(sorted((of[a], of[b])))] += 1  # type: ignore[index]
    return [(x, y) for x, y in combinations(big, 2) if across[(x, y)] < criteria.min_across]


def next_round(
    uses: Sequence[str],
    labels: Mapping[str, int],
    judged: Iterable[Pair],
    n_pairs: int,
    *,
    seed: int = 0,
    criteria: Criteria | None = None,
) -> list[Pair]:
    """Up to ``n_pairs`` new pairs: first for uses below ``min_degree`` and cluster pairs
    without enough pairs across, then within and across clusters in turn."""
    criteria = criteria or Criteria()
    rng = np.random.default_rng(seed)
    done = {pair_key(a, b) for a, b in judged}
    load = degrees(uses, done)
    clusters = _clusters(labels, uses)
    of = {u: c for c, members in clusters.items() for u in members}
    picked: list[Pair] = []

    def take(candidates: list[Pair]) -> bool:
        fresh = [p for p in candidates if p not in done]
        if not fresh or len(picked) >= n_pairs:
            return False
        fresh.sort(key=lambda p: (load[p[0]] + load[p[1]], p))
        low = load[fresh[0][0]] + load[fresh[0][1]]
        ties = [p for p in fresh if load[p[0]] + load[p[1]] == low]
        pair = ties[int(rng.integers(len(ties)))]
        picked.append(pair)
        done.add(pair)
        load[pair[0]] += 1
        load[pair[1]] += 1
        return True

    everyone = sorted(uses)
    for use in sorted(everyone, key=lambda u: (load[u], u)):
        while load[use] < criteria.min_degree and take(
            [pair_key(use, other) for other in everyone if other != use]
        ):
            pass
    for x, y in _short_cluster_pairs(uses, labels, done, criteria):
        take([pair_key(a, b) for a in clusters[x] for b in clusters[y]])
    progress = True
    while len(picked) < n_pairs and progress:
        within = [pair_key(a, b) for m in clusters.values() for a, b in combinations(m, 2)]
        across = [pair_key(a, b) for a, b in combinations(everyone, 2) if of[a] != of[b]]
        progress = take(within) | take(across)
    return sorted(picked)


@dataclass(frozen=True)
class Gold:
    """A use pair with a known answer, asked as an attention check: the answer must lie
    within ``tolerance`` of ``expected`` (and "cannot decide" never passes)."""

    use1: str
    use2: str
    expected: int
    tolerance: int = 1


def gold_pairs(
    uses: Sequence[str],
    judgments: Iterable[Judgment],
    n: int,
    *,
    seed: int = 0,
    taken: Iterable[Pair] = (),
) -> list[Gold]:
    """Up to ``n`` gold pairs (none of the pairs ``taken``, e.g. the researcher's own):
    pairs that at least two annotators judged, all of them 1 (unrelated) or all 4
    (identical), alternating between the two answers so that always pressing one key fails;
    then identity pairs (a use with itself, identical: 4) to fill. Without a pair judged 1
    the golds cannot mix answers (``constant_keys`` says which key passes them all)."""
    taken = {pair_key(a, b) for a, b in taken}
    rng = np.random.default_rng(seed)
    by_pair = judgments_by_pair(judgments)
    agreed: dict[int, list[Pair]] = {1: [], 4: []}
    for pair, scores in sorted(by_pair.items()):
        if pair in taken:
            continue
        if len(scores) >= 2 and len(set(scores)) == 1 and scores[0] in (1.0, 4.0):
            agreed[int(scores[0])].append(pair)
    for value in agreed:
        agreed[value] = [agreed[value][i] for i in rng.permutation(len(agreed[value]))]
    out: list[Gold] = []
    while len(out) < n and (agreed[1] or agreed[4]):
        for value in (1, 4):
            if agreed[value] and len(out) < n:
                a, b = agreed[value].pop(0)
                out.append(Gold(a, b, value))
    ordered = [u for u in sorted(uses) if (u, u) not in taken]
    for i in rng.permutation(len(ordered))[: max(0, n - len(out))]:
        out.append(Gold(ordered[i], ordered[i], 4))
    return out


def constant_keys(golds: Iterable[Gold]) -> list[int]:
    """The answers (0-4) that, pressed every time, pass every gold pair in ``golds``: none
    once the golds mix answers far enough apart (e.g. one expecting 1 and one expecting 4,
    within 1 each); every answer when there are no golds."""
    golds = list(golds)
    low, high = USE_PAIR.score_range
    return [
        key
        for key in range(low, high + 1)
        if all(
            check_passes(USE_PAIR.value, expected=g.expected, tolerance=g.tolerance, score=key)
            for g in golds
        )
    ]
