"""jsonl lines of a word's uses, judgments, clusters and scores (generators, one object per
line), shared by the API's streamed exports."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from wug.analysis import word_clustering, word_summary
from wug.crowd_reads import crowd_rows
from wug.formats import JUDGMENTS
from wug.models import GraphType, Judgment, Use, Word


def _line(obj: dict) -> str:
    return json.dumps(obj, ensure_ascii=False) + "\n"


def iter_uses(words: Iterable[Word]) -> Iterator[str]:
    for word in words:
        for use in Use.objects.filter(word=word).order_by("position").iterator():
            yield _line({"word": word.name, **use.fields})


def iter_judgments(words: Iterable[Word]) -> Iterator[str]:
    for word in words:
        for judgment in Judgment.objects.filter(word=word).order_by("position").iterator():
            yield _line({"word": word.name, **judgment.fields})
        for row in crowd_rows(word, word.layout.get(JUDGMENTS, {}).get("columns", [])):
            yield _line({"word": word.name, **row})


def iter_clusters(words: Iterable[Word]) -> Iterator[str]:
    """One line per clustered use: ``{"word", "identifier", "cluster"}`` (usage-usage graphs;
    seed 0, threshold 2.5)."""
    for word in words:
        if word.graph_type != GraphType.USAGE_USAGE:
            continue
        labels = word_clustering(word).labels
        for identifier, cluster in sorted(labels.items()):
            yield _line({"word": word.name, "identifier": identifier, "cluster": cluster})


def score_record(word: Word) -> dict:
    s = word_summary(word)
    agreement = s.agreement
    return {
        "word": word.name,
        "graph_type": word.graph_type,
        "uses": s.uses,
        "judgments": s.judgments,
        "annotators": s.annotators,
        "clusters": s.clusters,
        "loss": s.loss,
        "groupings": list(s.groupings) if s.groupings else None,
        "frequencies": {g: {str(c): n for c, n in row.items()} for g, row in s.frequencies.items()},
        "change_graded": s.change_graded,
        "change_binary": s.change_binary,
        "binary_thresholds": {"at_most": s.at_most, "at_least": s.at_least},
        "spearman": agreement.spearman if agreement else None,
        "annotator_pairs": agreement.annotator_pairs if agreement else None,
        "alpha_ordinal": agreement.alpha if agreement else None,
    }


def iter_scores(words: Iterable[Word]) -> Iterator[str]:
    for word in words:
        yield _line(score_record(word))
