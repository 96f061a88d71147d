"""A word's graph, clusters and statistics, read from the database (the maths is in
:mod:`wug.graph`, :mod:`wug.clustering` and :mod:`wug.statistics`)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from statistics import median

from wug.clustering import THRESHOLD, correlation_clustering
from wug.crowd_reads import crowd_edges
from wug.graph import CANNOT_DECIDE, Graph
from wug.graph import Judgment as Edge
from wug.models import Clustering, GraphType, Judgment, Use, Word
from wug.statistics import (
    AT_LEAST,
    AT_MOST,
    Agreement,
    agreement,
    binary_change,
    jensen_shannon,
    sense_frequencies,
)


def word_judgments(word: Word) -> list[Edge]:
    """The use-use judgments of a usage-usage graph as plain records: the imported ones,
    then the crowd's (``wug.crowd_reads``: valid ratings of its use-pair studies)."""
    rows = Judgment.objects.filter(word=word, use2__isnull=False).values_list(
        "use1__identifier", "use2__identifier", "annotator", "score"
    )
    return [Edge(a, b, who, score) for a, b, who, score in rows] + crowd_edges(word)


def fingerprint(judgments: list[Edge]) -> str:
    digest = hashlib.sha256()
    for j in sorted(judgments, key=lambda j: (j.use1, j.use2, j.annotator, j.score)):
        digest.update(f"{j.use1}\t{j.use2}\t{j.annotator}\t{j.score}\n".encode())
    return digest.hexdigest()


def word_clustering(
    word: Word,
    *,
    threshold: float = THRESHOLD,
    seed: int = 0,
    judgments: list[Edge] | None = None,
) -> Clustering:
    """The word's clustering, computed once per set of judgments and parameters and kept
    (``judgments``: the word's, when the caller has read them already)."""
    judgments = word_judgments(word) if judgments is None else judgments
    mark = fingerprint(judgments)
    kept = Clustering.objects.filter(word=word, threshold=threshold, seed=seed).first()
    if kept is not None and kept.fingerprint == mark:
        return kept
    uses = Use.objects.filter(word=word).values_list("identifier", flat=True)
    graph = Graph.build([], judgments) if judgments else Graph(tuple(uses), {})
    result = correlation_clustering(graph, threshold=threshold, seed=seed)
    kept, _ = Clustering.objects.update_or_create(
        word=word,
        threshold=threshold,
        seed=seed,
        defaults={"fingerprint": mark, "labels": result.labels, "loss": result.loss},
    )
    return kept


def sense_labels(word: Word) -> dict[str, int]:
    """Usage-sense graphs: each use's sense is the one with the highest median decided
    judgment (the earlier sense on a tie); uses with no decided judgment have none."""
    scores: dict[str, dict[int, list[float]]] = {}
    rows = Judgment.objects.filter(word=word, sense__isnull=False).values_list(
        "use1__identifier", "sense__position", "score"
    )
    for use, sense, score in rows:
        if score != CANNOT_DECIDE:
            scores.setdefault(use, {}).setdefault(sense, []).append(score)
    return {
        use: max(sorted(by_sense), key=lambda s: median(by_sense[s]))
        for use, by_sense in scores.items()
    }


@dataclass(frozen=True)
class WordSummary:
    word: Word
    uses: int
    judgments: int
    annotators: int
    clusters: int
    loss: float | None
    frequencies: dict[str, dict[int, int]]
    groupings: tuple[str, str] | None
    change_graded: float | None
    change_binary: bool | None
    agreement: Agreement | None
    at_most: int = AT_MOST
    at_least: int = AT_LEAST


def word_summary(word: Word, *, seed: int = 0) -> WordSummary:
    """Counts, clusters, change between the first two groupings, and agreement."""
    groupings = dict(Use.objects.filter(word=word).values_list("identifier", "grouping"))
    if word.graph_type == GraphType.USAGE_SENSE:
        labels, loss, agree = sense_labels(word), None, None
    else:
        judged = word_judgments(word)
        clustering = word_clustering(word, seed=seed, judgments=judged)
        labels, loss = clustering.labels, clustering.loss
        agree = agreement(judged)
    frequencies = sense_frequencies(labels, groupings)
    pair = tuple(sorted(frequencies)[:2])
    graded = binary = None
    if len(pair) == 2:
        first, second = frequencies[pair[0]], frequencies[pair[1]]
        graded = jensen_shannon(first, second)
        binary = binary_change(first, second)
    judgments = Judgment.objects.filter(word=word)
    crowd = crowd_edges(word) if word.graph_type == GraphType.USAGE_USAGE else []
    annotators = set(judgments.values_list("annotator", flat=True).distinct())
    return WordSummary(
        word=word,
        uses=len(groupings),
        judgments=judgments.count() + len(crowd),
        annotators=len(annotators | {j.annotator for j in crowd}),
        clusters=len(set(labels.values())),
        loss=loss,
        frequencies=frequencies,
        groupings=(pair[0], pair[1]) if len(pair) == 2 else None,
        change_graded=graded,
        change_binary=binary,
        agreement=agree,
    )


def graph_payload(word: Word) -> dict:
    """The word's graph for the page's graph view and its JSON endpoint: nodes (uses with
    their cluster, grouping and the target in a short window) and edges (median weights)."""
    if word.graph_type == GraphType.USAGE_SENSE:
        labels = sense_labels(word)
        edges: list[dict] = []
    else:
        judged = word_judgments(word)
        labels = word_clustering(word, judgments=judged).labels
        graph = Graph.build([], judged)
        edges = [{"source": a, "target": b, "weight": w} for (a, b), w in graph.weights.items()]
    nodes = []
    for use in Use.objects.filter(word=word).order_by("position"):
        start, end = use.target_start, use.target_end
        nodes.append(
            {
                "id": use.identifier,
                "cluster": labels.get(use.identifier),
                "grouping": use.grouping,
                "left": use.context[max(0, start - 60) : start],
                "target": use.context[start:end],
                "right": use.context[end : end + 60],
            }
        )
    return {"word": word.name, "graph_type": word.graph_type, "nodes": nodes, "edges": edges}


def frequency_table(summary: WordSummary) -> dict:
    """Cluster frequencies per grouping as table rows and as chart series (one per grouping)."""
    clusters = sorted({c for row in summary.frequencies.values() for c in row})
    rows = [
        (grouping, [counts.get(c, 0) for c in clusters])
        for grouping, counts in summary.frequencies.items()
    ]
    chart = {
        "title": f"Uses per cluster and grouping: {summary.word.name}",
        "labels": [str(c) for c in clusters],
        "series": [{"name": f"grouping {g}", "values": values} for g, values in rows],
    }
    return {"frequency_clusters": clusters, "frequency_rows": rows, "frequency_data": chart}
