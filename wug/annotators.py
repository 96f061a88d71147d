"""Computational annotators of use pairs: a predictions backend (``minilm_use_pairs`` by
default) judges every use pair of a word that humans judged, so model and humans can be
compared pair by pair and graph by graph.

Crash safety: judgments are written batch by batch; a run started again (the task, or
``annotate_wug``) skips the pairs it already judged. The calibration is fitted on the human
judgments of the *other* usage-usage words (never on the pairs being judged); with no other
word, the backend's uncalibrated mapping is used and the run says so.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from django.utils import timezone

from predictions.backends import get_backend
from wug.clustering import correlation_clustering
from wug.graph import Graph
from wug.graph import Judgment as Edge
from wug.models import GraphType, ModelAnnotation, ModelJudgment, Use, Word
from wug.texts import target_window

DEFAULT_BACKEND = "minilm_use_pairs"
BATCH = 64


def _use_text(use: Use) -> tuple[str, tuple[int, int]]:
    return target_window(
        use.context, (use.target_start, use.target_end), (use.sentence_start, use.sentence_end)
    )


def pair_sample(pair: tuple[str, str], uses: dict[str, Use], label: float | None = None) -> dict:
    text1, span1 = _use_text(uses[pair[0]])
    text2, span2 = _use_text(uses[pair[1]])
    sample: dict[str, object] = {"id": f"{pair[0]}|{pair[1]}", "context1": text1}
    sample["span1"] = list(span1)
    sample |= {"context2": text2, "span2": list(span2)}
    if label is not None:
        sample["label"] = label
    return sample


def human_pairs(word: Word) -> dict[tuple[str, str], float]:
    """The word's use pairs with a decided human judgment, and their median."""
    from wug.analysis import word_judgments

    return Graph.build([], word_judgments(word)).weights


def calibration_samples(word: Word) -> tuple[list[dict], list[str]]:
    samples: list[dict] = []
    names: list[str] = []
    others = Word.objects.filter(graph_type=GraphType.USAGE_USAGE).exclude(pk=word.pk)
    for other in others:
        uses = {u.identifier: u for u in Use.objects.filter(word=other)}
        pairs = human_pairs(other)
        samples += [pair_sample(p, uses, label) for p, label in sorted(pairs.items())]
        names.append(other.name)
    return samples, names


def model_annotation_run(annotation_id: int) -> ModelAnnotation:
    """Judge every pair not judged yet, batch by batch; mark the run done or failed."""
    annotation = ModelAnnotation.objects.select_related("word").get(pk=annotation_id)
    word = annotation.word
    uses = {u.identifier: u for u in Use.objects.filter(word=word)}
    pairs = sorted(human_pairs(word))
    done = set(
        ModelJudgment.objects.filter(annotation=annotation).values_list(
            "use1__identifier", "use2__identifier"
        )
    )
    todo = [p for p in pairs if p not in done]
    try:
        backend = get_backend(annotation.backend)
        fit, names = calibration_samples(word)
        backend.prepare(fit or None)
        ModelAnnotation.objects.filter(pk=annotation.pk).update(
            status=ModelAnnotation.Status.RUNNING,
            total=len(pairs),
            model_version=backend.model_version(),
            calibration_words=names,
        )
        for start in range(0, len(todo), BATCH):
            chunk = todo[start : start + BATCH]
            outputs = backend.predict_batch([pair_sample(p, uses) for p in chunk])
            ModelJudgment.objects.bulk_create(
                [
                    ModelJudgment(
                        annotation=annotation,
                        use1=uses[a],
                        use2=uses[b],
                        score=out.score,
                        similarity=json.loads(out.raw_output or "{}").get("similarity", out.score),
                    )
                    for (a, b), out in zip(chunk, outputs, strict=True)
                ],
                ignore_conflicts=True,
            )
    except Exception as exc:  # the run records why it failed; the worker goes on
        ModelAnnotation.objects.filter(pk=annotation.pk).update(
            status=ModelAnnotation.Status.FAILED, error=f"{type(exc).__name__}: {exc}"[:2000]
        )
        raise
    ModelAnnotation.objects.filter(pk=annotation.pk).update(
        status=ModelAnnotation.Status.DONE, finished_at=timezone.now()
    )
    annotation.refresh_from_db()
    return annotation


@dataclass(frozen=True)
class ModelView:
    """A finished model annotation beside the humans: its graph's clusters and loss, and
    Spearman between its scores and the human medians on the same pairs."""

    annotation: ModelAnnotation
    pairs: int
    spearman: float | None
    clusters: int
    loss: float
    labels: dict[str, int]


def model_view(annotation: ModelAnnotation, *, seed: int = 0) -> ModelView:
    from scipy.stats import spearmanr

    rows = list(annotation.judgments.values_list("use1__identifier", "use2__identifier", "score"))
    human = human_pairs(annotation.word)
    common = [(human[(a, b)], s) for a, b, s in rows if (a, b) in human]
    rho = None
    if len(common) >= 3:
        rho = float(spearmanr([h for h, _ in common], [m for _, m in common]).statistic)
    graph = Graph.build([], [Edge(a, b, "model", s) for a, b, s in rows])
    clustering = correlation_clustering(graph, seed=seed)
    return ModelView(
        annotation, len(rows), rho, clustering.count, clustering.loss, clustering.labels
    )


def model_views(word: Word) -> list[ModelView | ModelAnnotation]:
    """The word's model annotations, newest first: finished ones as :class:`ModelView`,
    the others as they stand (queued, running, failed)."""
    out: list[ModelView | ModelAnnotation] = []
    for annotation in ModelAnnotation.objects.filter(word=word):
        done = annotation.status == ModelAnnotation.Status.DONE
        out.append(model_view(annotation) if done else annotation)
    return out
