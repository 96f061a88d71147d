"""Samples as plain dicts for backends, and the rules about which samples go together.

One home for: a split's samples as backend rows (:func:`split_rows`), the story a sample
belongs to (:func:`story_key`, the other sense of the same story), keeping a story's samples
in one batch (:func:`stories_together`, :func:`batches`), and "never fit on the scored
samples" (:class:`FitOnScoredSamples`, :func:`fit_splits_for`, :func:`refuse_fit_on_scored`,
:func:`refuse_overlap`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet

from annotations.models import Rating, Sample, Split, TaskKind
from annotations.text_versions import Versions, versions_shown
from predictions.errors import FitOnScoredSamples
from predictions.ml.texts import field, setup_key, story_groups, story_key
from predictions.models import ModelRun, TrainedModel


@dataclass(frozen=True)
class Row:
    pk: int
    story_id: int
    homonym: str
    sample: dict
    versions: Versions  # the reference versions of the texts in ``sample``


def split_rows(
    split: Split, *, labels: bool = False, only: QuerySet[Sample] | None = None
) -> list[Row]:
    """The split's samples in file order as backend dicts (labels only when asked, for fitting:
    ``choices`` from valid ratings and their ``average``; a sense-choice sample's ``gold``
    candidate index); with ``only``, just those of them (read in the same query)."""
    samples = Sample.objects.filter(split=split)
    if only is not None:
        samples = samples.filter(pk__in=only.values("pk"))
    qs = (
        samples.with_related()
        .select_related("pair")
        .prefetch_related("candidates")
        .order_by("position")
    )
    scores: dict[int, list[int]] = {}
    if labels:
        valid = Rating.objects.valid().filter(sample__split=split).order_by("position", "id")
        for sample_id, value in valid.values_list("sample_id", "score"):
            scores.setdefault(sample_id, []).append(value)
    rows = []
    for s in qs:
        d = backend_dict(s)
        if labels and d["task_kind"] == TaskKind.SENSE_CHOICE:
            gold = [c.index for c in s.candidates.all() if c.is_gold]
            if not gold:
                continue
            d["gold"] = gold[0]
        elif labels:
            if not scores.get(s.pk):
                continue
            d["choices"] = scores[s.pk]
            d["average"] = sum(scores[s.pk]) / len(scores[s.pk])
        rows.append(Row(s.pk, s.story_id, d["homonym"], d, versions_shown(s)))
    return rows


def backend_dict(s: Sample) -> dict:
    """A sample as backends see it, never with labels: the AmbiStory text fields, plus
    ``sentence1``/``sentence2``/``target`` for relatedness and ``context`` (target marked
    ``<t>...</t>``), ``set`` and ``candidates`` for sense choice. ``s`` comes with its
    relations (``with_related``; ``pair`` and ``candidates`` for those kinds)."""
    kind = s.split.dataset.task_kind
    setup = s.story.setup
    d: dict[str, Any] = {
        "id": s.dataset_id,
        "task_kind": kind,
        "homonym": setup.homonym.form,
        "judged_meaning": s.sense.gloss if s.sense else "",
        "example_sentence": s.sense.example_sentence if s.sense else "",
        "precontext": setup.precontext,
        "sentence": setup.sentence,
        "ending": s.story.ending,
    }
    if kind == TaskKind.RELATEDNESS:
        pair = getattr(s, "pair", None)
        target = pair.target if pair else setup.homonym.form
        d.update(sentence1=setup.precontext, sentence2=setup.sentence, target=target)
    elif kind == TaskKind.SENSE_CHOICE:
        d.update(
            context=setup.sentence,
            set=s.item_set,
            candidates=[
                {"key": c.key, "gloss": c.gloss, "synonyms": c.synonyms, "examples": c.examples}
                for c in s.candidates.all()
            ],
        )
    return d


def split_names(value: str | Sequence[str] | None) -> list[str]:
    """A ``fit_split`` field or option as split names: ``"train,dev"`` or ``["train", "dev"]`` ->
    ``["train", "dev"]`` (blanks and repeats dropped, order kept); empty for none."""
    parts = value.split(",") if isinstance(value, str) else list(value or [])
    names: list[str] = []
    for part in parts:
        name = str(part).strip()
        if name and name not in names:
            names.append(name)
    return names


def refuse_fit_on_scored(fit_names: Sequence[str], scored_name: str) -> None:
    """The one rule by split name: nothing is fitted on the split it is scored on. Run
    creation (API, the runs page, ``run_model``), the worker and runs naming a trained model
    (its training splits) all call this; where there are no split names, only texts (the
    ``predict`` command's files), :func:`refuse_overlap` is the same rule by sample."""
    if scored_name in fit_names:
        raise FitOnScoredSamples(f"cannot fit on the split it is scored on ({scored_name})")


def fit_splits_for(run: ModelRun) -> list[Split]:
    """The splits a run's backend fits on (its ``fit_split`` field; same dataset), never its
    own."""
    names = split_names(run.fit_split)
    refuse_fit_on_scored(names, run.split.name)
    return [Split.objects.get(dataset_id=run.split.dataset_id, name=name) for name in names]


def trained_split_names(model: TrainedModel) -> list[str]:
    """The splits a trained model was trained on: its ``fit_split`` list, or its ``split``."""
    return split_names(model.fit_split) or [model.split.name]


def trained_splits(model: TrainedModel) -> list[Split]:
    names = trained_split_names(model)
    found = {
        s.name: s for s in Split.objects.filter(dataset_id=model.split.dataset_id, name__in=names)
    }
    return [found[name] for name in names]


def fit_rows(splits: Sequence[Split]) -> list[dict]:
    """The labelled samples of ``splits``, in order, as one fit set."""
    return [row.sample for split in splits for row in split_rows(split, labels=True)]


def refuse_overlap(fit: Iterable[dict], scored: Iterable[dict]) -> None:
    """Raise :class:`FitOnScoredSamples` when a fit sample is also a scored one (same texts)."""
    overlap = {text_key(s) for s in fit} & {text_key(s) for s in scored}
    if overlap:
        raise FitOnScoredSamples(f"{len(overlap)} fit samples are also being predicted")


def text_key(sample: dict) -> tuple:
    """Every input text of a sample: two samples with the same key are the same sample."""
    return (*story_key(sample), field(sample, "judged_meaning"), field(sample, "example_sentence"))


def batch_group(backend: Any) -> Callable[[dict], Hashable] | None:
    """The key of the groups a backend's batches must not split (from a backend's sample
    dict): the setup (``needs_whole_setups``), the story (``needs_whole_stories``) or none.
    The one rule of the run loop and of ``predict``."""
    if backend.needs_whole_setups:
        return setup_key
    if backend.needs_whole_stories:
        return story_key
    return None


def stories_together(items: Sequence, key) -> list:
    """``items`` reordered so that items with the same ``key`` are adjacent (groups in order
    of first appearance, items in their own order), as :func:`batches` needs for grouping."""
    return [items[i] for group in story_groups([key(item) for item in items]) for i in group]


def batches(items: Sequence, size: int, *, group_of=None) -> Iterator[list]:
    """Consecutive batches of about ``size``; with ``group_of`` no group is split apart."""
    size = max(1, int(size))
    batch: list = []
    for index, item in enumerate(items):
        starts_group = (
            group_of is None or index == 0 or group_of(item) != group_of(items[index - 1])
        )
        if len(batch) >= size and starts_group:
            yield batch
            batch = []
        batch.append(item)
    if batch:
        yield batch
