"""Word Usage Graphs as plain data: judgments in, weighted edges out. Pure: no Django.

A judgment is one annotator's DURel proximity of two uses: 1 unrelated, 2 distantly related,
3 closely related, 4 identical, 0 "cannot decide". As in the DWUG pipeline, an edge's weight
is the median of the pair's judgments with the 0s left out; a pair judged only with 0 has no
edge. Pairs are unordered: (a, b) and (b, a) are one edge.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from statistics import median

CANNOT_DECIDE = 0
SCALE = (1, 2, 3, 4)


@dataclass(frozen=True)
class Judgment:
    use1: str
    use2: str
    annotator: str
    score: float


def pair_key(a: str, b: str) -> tuple[str, str]:
    """The one order an unordered pair of uses is stored in."""
    return (a, b) if a <= b else (b, a)


def judgments_by_pair(judgments: Iterable[Judgment]) -> dict[tuple[str, str], list[float]]:
    """Every pair's decided judgments (0s left out), in input order."""
    out: dict[tuple[str, str], list[float]] = defaultdict(list)
    for j in judgments:
        if j.use1 == j.use2:
            continue
        key = pair_key(j.use1, j.use2)
        out.setdefault(key, [])
        if j.score != CANNOT_DECIDE:
            out[key].append(float(j.score))
    return dict(out)


def edge_weights(judgments: Iterable[Judgment]) -> dict[tuple[str, str], float]:
    """Median decided judgment per pair; pairs with no decided judgment have no edge."""
    return {pair: median(scores) for pair, scores in judgments_by_pair(judgments).items() if scores}


@dataclass(frozen=True)
class Graph:
    """Nodes (use identifiers, sorted) and weighted undirected edges between them."""

    nodes: tuple[str, ...]
    weights: dict[tuple[str, str], float]

    @classmethod
    def build(cls, uses: Iterable[str], judgments: Iterable[Judgment]) -> Graph:
        weights = edge_weights(judgments)
        nodes = set(uses)
        for a, b in weights:
            nodes.update((a, b))
        return cls(tuple(sorted(nodes)), weights)

    def neighbours(self) -> dict[str, list[tuple[str, float]]]:
        out: dict[str, list[tuple[str, float]]] = {n: [] for n in self.nodes}
        for (a, b), w in self.weights.items():
            out[a].append((b, w))
            out[b].append((a, w))
        return out

    def components(self, threshold: float) -> list[set[str]]:
        """Connected components of the edges weighted above ``threshold``."""
        parent = {n: n for n in self.nodes}

        def find(x: str) -> str:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for (a, b), w in self.weights.items():
            if w > threshold:
                parent[find(a)] = find(b)
        groups: dict[str, set[str]] = defaultdict(set)
        for n in self.nodes:
            groups[find(n)].add(n)
        return list(groups.values())
