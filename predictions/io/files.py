"""The ``predict`` command's path: AmbiStory files in, predictions out, no database."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from predictions.backends import PredictionOutput, PredictorBackend
from predictions.runs.rows import batch_group, batches, refuse_overlap, stories_together


def predict_samples(
    backend: PredictorBackend,
    samples: Sequence[dict],
    fit: Sequence[dict] | None = None,
    *,
    on_batch: Callable[[int], None] | None = None,
) -> list[PredictionOutput]:
    """Prepare ``backend`` on ``fit`` and predict ``samples`` batch by batch, in order;
    ``on_batch`` is told the number of samples predicted so far after each batch.

    Refuses (:class:`~predictions.runs.rows.FitOnScoredSamples`) when a fit sample is also being
    predicted.
    """
    if fit:
        refuse_overlap(fit, samples)
    backend.prepare(list(fit) if fit else None)
    indexed = list(enumerate(samples))
    key = batch_group(backend)
    group = (lambda item: key(item[1])) if key else None
    if group:
        indexed = stories_together(indexed, group)
    outputs: list[PredictionOutput | None] = [None] * len(samples)
    done = 0
    for batch in batches(indexed, backend.batch_size, group_of=group):
        for (index, _), out in zip(batch, backend.predict_batch([s for _, s in batch])):
            outputs[index] = out
        done += len(batch)
        if on_batch is not None:
            on_batch(done)
    complete = [out for out in outputs if out is not None]
    if len(complete) != len(outputs):
        raise ValueError("the backend returned fewer predictions than samples")
    return complete
