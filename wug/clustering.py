"""Correlation clustering of a Word Usage Graph into senses. Pure: no Django.

Objective (weighted correlation clustering, as in DWUG): every edge gets the signed weight
``s = w - threshold`` (threshold 2.5 halfway on the 1-4 scale, so 3 and 4 attract, 1 and 2
repel). The loss of a clustering is the sum of ``s`` over attracting edges *between* clusters
plus the sum of ``|s|`` over repelling edges *inside* clusters; the clustering with the least
loss is the senses. Pairs without an edge cost nothing either way.

Solver: a local search of single-node moves (each node moves to the cluster, or a new
singleton, with the largest signed weight to it, until no move lowers the loss), started from
the components of the attracting edges and from ``restarts`` seeded random partitions into
1..``max_clusters`` clusters; the lowest loss wins (the earliest start on a tie). The result is
deterministic for a seed. The problem is NP-hard, so this is a heuristic;
``exact_clustering`` enumerates every partition of a small graph (n <= 10) to check it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import numpy as np

from wug.graph import Graph

THRESHOLD = 2.5
EPSILON = 1e-9


@dataclass(frozen=True)
class Clustering:
    """``labels[use]``: its cluster, numbered 0.. by size (largest first), then by first use."""

    labels: dict[str, int]
    loss: float

    @property
    def count(self) -> int:
        return len(set(self.labels.values()))

    def clusters(self) -> list[list[str]]:
        out: list[list[str]] = [[] for _ in range(self.count)]
        for use, label in sorted(self.labels.items()):
            out[label].append(use)
        return out


def loss(graph: Graph, labels: Mapping[str, int], threshold: float = THRESHOLD) -> float:
    """The correlation-clustering loss of ``labels`` on ``graph`` (see the module docstring)."""
    total = 0.0
    for (a, b), w in graph.weights.items():
        s = w - threshold
        same = labels[a] == labels[b]
        if s > 0 and not same:
            total += s
        elif s < 0 and same:
            total -= s
    return total


def canonical(labels: Mapping[str, int]) -> dict[str, int]:
    """Relabel clusters 0.. by size (largest first), ties by their smallest use identifier."""
    members: dict[int, list[str]] = {}
    for use, label in labels.items():
        members.setdefault(label, []).append(use)
    order = sorted(members.values(), key=lambda uses: (-len(uses), min(uses)))
    return {use: i for i, uses in enumerate(order) for use in uses}


def _improve(adj: list[list[tuple[int, float]]], start: list[int], rng) -> list[int]:
    """Single-node moves, then a merge of the two most attracting clusters, until neither
    lowers the loss."""
    labels = list(start)
    while True:
        labels = _node_moves(adj, labels, rng)
        merged = _merge_best_pair(adj, labels)
        if merged is None:
            return labels
        labels = merged


def _merge_best_pair(adj: list[list[tuple[int, float]]], labels: list[int]) -> list[int] | None:
    """Merge the two clusters with the largest positive signed weight between them (a move
    that single-node moves cannot make when both clusters hold each other's nodes); None if
    no pair of clusters attracts."""
    between: dict[tuple[int, int], float] = {}
    for v, edges in enumerate(adj):
        for u, s in edges:
            a, b = labels[v], labels[u]
            if a < b:
                between[(a, b)] = between.get((a, b), 0.0) + s
    if not between:
        return None
    (a, b), weight = max(sorted(between.items()), key=lambda item: item[1])
    if weight <= EPSILON:
        return None
    return [a if label == b else label for label in labels]


def _node_moves(adj: list[list[tuple[int, float]]], start: list[int], rng) -> list[int]:
    """Moving node v into cluster X costs ``P - S_X``, where ``P`` is v's attracting weight
    and ``S_X`` its signed weight to X, so the best move is to the X with the largest
    ``S_X``. A node that no cluster attracts (every ``S_X <= 0``) stands alone: never worse,
    and the same answer from every start."""
    labels = list(start)
    sizes = Counter(labels)
    fresh = max(labels, default=-1) + 1
    improved = True
    while improved:
        improved = False
        for v in rng.permutation(len(labels)):
            to: dict[int, float] = {}
            for u, s in adj[v]:
                to[labels[u]] = to.get(labels[u], 0.0) + s
            best_label, best = labels[v], to.get(labels[v], 0.0)
            for label in sorted(to):
                if to[label] > best + EPSILON:
                    best_label, best = label, to[label]
            if best <= EPSILON and sizes[labels[v]] > 1:
                best_label = fresh
                fresh += 1
            if best_label != labels[v]:
                sizes[labels[v]] -= 1
                sizes[best_label] += 1
                labels[v] = best_label
                improved = True
    return labels


def correlation_clustering(
    graph: Graph,
    *,
    threshold: float = THRESHOLD,
    seed: int = 0,
    restarts: int = 100,
    max_clusters: int = 10,
) -> Clustering:
    """The lowest-loss clustering the local search finds (module docstring); deterministic."""
    nodes = list(graph.nodes)
    if not nodes:
        return Clustering({}, 0.0)
    index = {n: i for i, n in enumerate(nodes)}
    adj: list[list[tuple[int, float]]] = [[] for _ in nodes]
    for (a, b), w in graph.weights.items():
        adj[index[a]].append((index[b], w - threshold))
        adj[index[b]].append((index[a], w - threshold))
    rng = np.random.default_rng(seed)
    component_of = {n: i for i, comp in enumerate(graph.components(threshold)) for n in comp}
    starts = [[component_of[n] for n in nodes]]
    for r in range(restarts):
        k = 1 + r % max(1, min(max_clusters, len(nodes)))
        starts.append([int(x) for x in rng.integers(0, k, size=len(nodes))])
    best: Clustering | None = None
    for start in starts:
        labels = _improve(adj, start, rng)
        named = canonical(dict(zip(nodes, labels, strict=True)))
        candidate = Clustering(named, loss(graph, named, threshold))
        if best is None or candidate.loss < best.loss - EPSILON:
            best = candidate
    assert best is not None
    return best


def _partitions(n: int) -> Iterator[list[int]]:
    """Every set partition of range(n) as a restricted growth string."""
    labels = [0] * n

    def grow(i: int, used: int) -> Iterator[list[int]]:
        if i == n:
            yield list(labels)
            return
        for label in range(used + 1):
            labels[i] = label
            yield from grow(i + 1, max(used, label + 1))

    yield from grow(0, 0)


def exact_clustering(graph: Graph, *, threshold: float = THRESHOLD) -> Clustering:
    """The optimal clustering by enumeration (Bell(n) partitions): small graphs only."""
    nodes = list(graph.nodes)
    if len(nodes) > 10:
        raise ValueError(f"exact_clustering enumerates partitions: {len(nodes)} uses is too many")
    best: Clustering | None = None
    for labels in _partitions(len(nodes)):
        named = dict(zip(nodes, labels, strict=True))
        value = loss(graph, named, threshold)
        if best is None or value < best.loss - EPSILON:
            best = Clustering(canonical(named), value)
    return best if best is not None else Clustering({}, 0.0)
