"""MiniLM (all-MiniLM-L6-v2, offline) fine-tuned as a cross-encoder regressor.

Input pair: the story with its ambiguous sentence marked, and the sense text
``"homonym: gloss (as in: example)"``. Target: the mean rating mapped to [0, 1]
(``(average - 1) / 4``), trained with a sigmoid + BCE loss (plus, by default, a pairwise
loss between the two senses of one story); predictions are on the 1-5 scale.

``train(samples, out_dir)`` writes a small transformers model directory plus
``train_log.json`` (per-epoch loss and seconds); ``CrossEncoderModel.load(dir)`` reads it.
The directory also gets a ``.gitignore`` (``*``) so that weights never land in git.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .encoder import DEFAULT_THREADS, model_path, set_offline
from .finetune import LOG_FILE, save_directory, seed_all, story_units, train_epochs
from .texts import SampleFields, sense_text, story_text

__all__ = ["CrossEncoderModel", "train", "pair_texts", "LOG_FILE"]
MAX_SEQ_LENGTH = 160


def pair_texts(sample: SampleFields) -> tuple[str, str]:
    """(story with marked sentence, sense text) for one sample."""
    return story_text(sample), sense_text(sample)


def _target(sample: SampleFields) -> float:
    return (float(sample["average"]) - 1.0) / 4.0


def _freeze(model: Any, layers: int) -> None:
    """Freeze the embeddings and the lowest ``layers`` encoder layers (0: train everything)."""
    if layers <= 0:
        return
    base = getattr(model, model.base_model_prefix)
    for p in base.embeddings.parameters():
        p.requires_grad = False
    for layer in base.encoder.layer[:layers]:
        for p in layer.parameters():
            p.requires_grad = False


def _pair_index(units: Sequence[Sequence[int]]) -> list[tuple[int, int]]:
    """Positions (in the flattened batch) of every two-sense story: (first, second)."""
    pairs, pos = [], 0
    for unit in units:
        if len(unit) == 2:
            pairs.append((pos, pos + 1))
        pos += len(unit)
    return pairs


class CrossEncoderModel:
    """A loaded cross-encoder: ``predict(samples)`` gives ratings on the 1-5 scale."""

    def __init__(self, model: Any, tokenizer: Any, max_seq_length: int = MAX_SEQ_LENGTH):
        self.model = model
        self.tokenizer = tokenizer
        self.max_seq_length = max_seq_length

    @classmethod
    def base(cls, max_seq_length: int = MAX_SEQ_LENGTH) -> CrossEncoderModel:
        """MiniLM with a fresh 1-output regression head (not trained yet)."""
        return cls._from_dir(model_path(), max_seq_length)

    @classmethod
    def load(cls, directory: str | Path) -> CrossEncoderModel:
        """Load a directory written by :func:`train`."""
        directory = Path(directory)
        meta = json.loads((directory / LOG_FILE).read_text())
        return cls._from_dir(directory, int(meta.get("max_seq_length", MAX_SEQ_LENGTH)))

    @classmethod
    def _from_dir(cls, directory: Path, max_seq_length: int) -> CrossEncoderModel:
        set_offline(DEFAULT_THREADS)
        from transformers import AutoModelForSequenceClassification, AutoTokenizer
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity_error()
        tokenizer = AutoTokenizer.from_pretrained(str(directory), local_files_only=True)
        tokenizer.truncation_side = "left"  # a long story loses its first words, never the ending
        model = AutoModelForSequenceClassification.from_pretrained(
            str(directory), num_labels=1, local_files_only=True
        )
        return cls(model, tokenizer, max_seq_length)

    def _batch(self, samples: Sequence[SampleFields]) -> dict:
        stories, senses = zip(*(pair_texts(s) for s in samples))
        return self.tokenizer(
            list(stories),
            list(senses),
            truncation="only_first",
            max_length=self.max_seq_length,
            padding=True,
            return_tensors="pt",
        )

    def logits(self, samples: Sequence[SampleFields]) -> Any:
        """Raw logits (a torch tensor of shape ``(n,)``) with gradients as the mode allows."""
        return self.model(**self._batch(samples)).logits.squeeze(-1)

    def predict(self, samples: Sequence[SampleFields], batch_size: int = 64) -> list[float]:
        """Ratings in [1, 5] for ``samples``; labels are never read."""
        import torch

        self.model.eval()
        out: list[float] = []
        with torch.inference_mode():
            for start in range(0, len(samples), batch_size):
                chunk = samples[start : start + batch_size]
                out.extend((torch.sigmoid(self.logits(chunk)) * 4 + 1).tolist())
        return [float(x) for x in out]

    def save(self, directory: str | Path, meta: dict | None = None) -> None:
        save_directory(self.model, self.tokenizer, directory, meta)


def _unit_loss(
    ce: CrossEncoderModel, data: Sequence[SampleFields]
) -> Callable[[list[list[int]]], tuple[Any, int]]:
    """The loss of a batch of units (a sample, or a story's two senses): BCE of each logit
    against the scaled mean rating, plus for two senses a BCE on their logit difference."""
    import torch

    loss_fn = torch.nn.BCEWithLogitsLoss()

    def batch_loss(picked: list[list[int]]) -> tuple[Any, int]:
        chunk = [data[i] for unit in picked for i in unit]
        target = torch.tensor([_target(s) for s in chunk], dtype=torch.float32)
        logits = ce.logits(chunk)
        loss = loss_fn(logits, target)
        pairs = _pair_index(picked)
        if pairs:
            a, b = (torch.tensor(x) for x in zip(*pairs))
            loss = loss + loss_fn(logits[a] - logits[b], (target[a] - target[b] + 1) / 2)
        return loss, len(chunk)

    return batch_loss


def train(
    samples: Sequence[SampleFields],
    out_dir: str | Path,
    *,
    epochs: int = 2,
    seed: int = 13,
    batch_size: int = 16,
    lr: float = 4e-5,
    max_seq_length: int = MAX_SEQ_LENGTH,
    objective: str = "pairwise",
    freeze_layers: int = 0,
    log: Callable[[str], None] = print,
    on_step: Callable[[int, int], None] | None = None,
) -> CrossEncoderModel:
    """Fine-tune MiniLM on labelled ``samples`` and save it (and its log) to ``out_dir``.

    ``objective="pointwise"``: BCE of each sample's logit against its scaled mean rating.
    ``objective="pairwise"``: batches of whole stories (both senses); the pointwise loss
    plus a BCE on the logit difference of the two senses of a story against
    ``(avg_a - avg_b + 4) / 8``, which teaches which sense the story prefers.
    ``freeze_layers=k`` keeps the embeddings and the lowest ``k`` transformer layers fixed
    (cheaper backward pass on a busy CPU).

    The log (``train_log.json``) holds per-epoch mean loss and seconds. Returns the
    trained model, ready for :meth:`CrossEncoderModel.predict`.
    """
    seed_all(seed)
    ce = CrossEncoderModel.base(max_seq_length)
    _freeze(ce.model, freeze_layers)
    data = list(samples)
    units = story_units(data) if objective == "pairwise" else [[i] for i in range(len(data))]
    batch_loss = _unit_loss(ce, data)
    history = train_epochs(
        ce.model,
        units,
        batch_loss,
        epochs=epochs,
        per_batch=max(1, batch_size // 2) if objective == "pairwise" else batch_size,
        lr=lr,
        seed=seed,
        label="cross-encoder",
        log=log,
        on_step=on_step,
    )
    meta = {
        "architecture": "crossencoder",
        "epochs": history,
        "n_samples": len(data),
        "seed": seed,
        "batch_size": batch_size,
        "lr": lr,
        "max_seq_length": max_seq_length,
        "objective": objective,
        "freeze_layers": freeze_layers,
    }
    ce.save(out_dir, meta)
    return ce
