"""MiniLM (all-MiniLM-L6-v2, offline) fine-tuned as a bi-encoder on the homonym itself.

A story and a sense are encoded separately; each is represented by the contextual vector
of the homonym's tokens (last layer by default): in the story, the first occurrence at or
after the ambiguous sentence; in the sense text ``"homonym: gloss (as in: example)"``, the
leading homonym. The score is the cosine of the two vectors. Unlike a cross-encoder with a
fresh regression head, this starts from a signal that already works untrained (the
frozen cosine ranks dev at Spearman ~0.30), and fine-tuning sharpens it.

Training is pairwise: for each story judged on two senses, a BCE on
``SCALE * (cos_a - cos_b)`` against ``(avg_a - avg_b + 4) / 8``, i.e. which sense the story
prefers and by how much. With ``contrasts="sense+story"`` the same loss is also taken along
the other axis of a setup: one sense judged on two stories of the setup (two endings, or an
ending and none), i.e. which story makes the sense more plausible. Labels are read only by
:func:`train`.

``train(samples, out_dir)`` writes a transformers model directory plus ``train_log.json``
(``"architecture": "biencoder"``, per-epoch loss and seconds); :func:`load_trained` loads
either this or a cross-encoder directory by what its log says.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .crossencoder import CrossEncoderModel
from .encoder import DEFAULT_THREADS, model_path, set_offline, torch_device
from .features import homonym_span, setup_sense_groups
from .finetune import LOG_FILE, save_directory, seed_all, story_units, train_epochs
from .texts import SampleFields, field, sense_text, story_text

__all__ = ["BiEncoderModel", "train", "load_trained", "ARCHITECTURE", "SCALE", "CONTRASTS"]

ARCHITECTURE = "biencoder"
SCALE = 10.0  # cosine difference -> logit; fixed (cosines differ by ~0.1 between senses)
MAX_SEQ_LENGTH = 256
CONTRASTS = ("sense", "sense+story")  # which pairs :func:`train` learns from
CENTER = 3.0  # rating = CENTER + 2 * cosine, clipped to [1, 5]: a score, not a calibration


def _story_item(sample: SampleFields) -> tuple[str, tuple[int, int] | None]:
    text = story_text(sample, mark=False)
    start = len(field(sample, "precontext"))
    return text, homonym_span(text, field(sample, "homonym"), start)


def _sense_item(sample: SampleFields) -> tuple[str, tuple[int, int] | None]:
    text = sense_text(sample)
    return text, homonym_span(text, field(sample, "homonym"))


class BiEncoderModel:
    """A loaded bi-encoder: ``similarities(samples)`` (cosines) and ``predict`` (1-5)."""

    def __init__(self, model: Any, tokenizer: Any, *, layer: int = -1, max_seq_length: int = 0):
        self.model = model
        self.tokenizer = tokenizer
        self.layer = layer
        self.max_seq_length = max_seq_length or MAX_SEQ_LENGTH

    @classmethod
    def base(cls, *, layer: int = -1, max_seq_length: int = MAX_SEQ_LENGTH) -> BiEncoderModel:
        """The packaged MiniLM, not fine-tuned."""
        return cls._from_dir(model_path(), layer=layer, max_seq_length=max_seq_length)

    @classmethod
    def load(cls, directory: str | Path) -> BiEncoderModel:
        """Load a directory written by :func:`train`."""
        meta = json.loads((Path(directory) / LOG_FILE).read_text())
        return cls._from_dir(
            Path(directory),
            layer=int(meta.get("layer", -1)),
            max_seq_length=int(meta.get("max_seq_length", MAX_SEQ_LENGTH)),
        )

    @classmethod
    def _from_dir(cls, directory: Path, **kwargs) -> BiEncoderModel:
        set_offline(DEFAULT_THREADS)
        from transformers import AutoModel, AutoTokenizer
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity_error()
        tokenizer = AutoTokenizer.from_pretrained(str(directory), local_files_only=True)
        model = AutoModel.from_pretrained(str(directory), local_files_only=True)
        return cls(model.to(torch_device()), tokenizer, **kwargs)

    def vectors(self, items: Sequence[tuple[str, tuple[int, int] | None]]) -> Any:
        """Unit-norm homonym vectors (torch, gradients as the mode allows), shape (n, d).

        A span that the tokenizer cut off, or no span, falls back to mean pooling."""
        import torch

        enc = self.tokenizer(
            [text for text, _ in items],
            return_offsets_mapping=True,
            padding=True,
            truncation=True,
            max_length=self.max_seq_length,
            return_tensors="pt",
        )
        device = self.model.device
        offsets = enc.pop("offset_mapping").to(device)
        enc = {k: v.to(device) for k, v in enc.items()}
        hidden = self.model(**enc, output_hidden_states=True).hidden_states[self.layer]
        mask = enc["attention_mask"].bool()
        select = mask.clone()
        for j, (_, span) in enumerate(items):
            if span is None:
                continue
            inside = (offsets[j][:, 0] < span[1]) & (offsets[j][:, 1] > span[0]) & mask[j]
            if bool(inside.any()):
                select[j] = inside
        weights = select.unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * weights).sum(1) / weights.sum(1)
        return pooled / torch.linalg.vector_norm(pooled, dim=1, keepdim=True).clamp_min(1e-9)

    def similarities(self, samples: Sequence[SampleFields], batch_size: int = 32) -> np.ndarray:
        """cos(story's homonym vector, sense's homonym vector) per sample; labels unread."""
        import torch

        self.model.eval()
        out = np.zeros(len(samples))
        with torch.inference_mode():
            for start in range(0, len(samples), batch_size):
                chunk = samples[start : start + batch_size]
                story = self.vectors([_story_item(s) for s in chunk])
                sense = self.vectors([_sense_item(s) for s in chunk])
                out[start : start + len(chunk)] = (story * sense).sum(1).cpu().numpy()
        return out

    def predict(self, samples: Sequence[SampleFields], batch_size: int = 32) -> list[float]:
        """``3 + 2 * cosine`` clipped to [1, 5]: a monotone score, uncalibrated."""
        sims = self.similarities(list(samples), batch_size)
        return [float(v) for v in np.clip(CENTER + 2.0 * sims, 1.0, 5.0)]

    def save(self, directory: str | Path, meta: dict | None = None) -> None:
        save_directory(self.model, self.tokenizer, directory, meta)


def _pairs(data: Sequence[SampleFields]) -> list[tuple[int, int]]:
    """(a, b) indices of every story judged on exactly two senses."""
    return [(unit[0], unit[1]) for unit in story_units(data) if len(unit) == 2]


def _story_pairs(data: Sequence[SampleFields]) -> list[tuple[int, int]]:
    """(a, b) indices of every two stories of one setup judged on the same sense."""
    groups = {group[0]: group for group in setup_sense_groups(data)}  # each group once
    return [
        (group[i], group[j])
        for group in groups.values()
        for i in range(len(group))
        for j in range(i + 1, len(group))
    ]


def _training_pairs(
    data: Sequence[SampleFields], contrasts: str
) -> tuple[list[tuple[int, int]], int]:
    """The pairs to train on (two senses of a story first, then with ``"sense+story"`` two
    stories of a setup on one sense) and how many of them are two-sense pairs."""
    pairs = _pairs(data)
    if not pairs:
        raise ValueError("no story is judged on two senses: nothing to train on")
    n_sense = len(pairs)
    if contrasts == "sense+story":
        pairs += _story_pairs(data)
    return pairs, n_sense


def _pair_loss(
    bi: BiEncoderModel, data: Sequence[SampleFields], by_story: set[tuple[int, int]]
) -> Callable[[list[tuple[int, int]]], tuple[Any, int]]:
    """The loss of a batch of pairs: BCE of the scaled cosine difference against
    ``(avg_a - avg_b + 4) / 8``, for two senses of one story (``by_story``) or one sense of
    two stories."""
    import torch

    loss_fn = torch.nn.BCEWithLogitsLoss()

    def logits(chunk: list[tuple[int, int]], same_story: bool) -> Any:
        if same_story:  # one story, two senses
            story = bi.vectors([_story_item(data[a]) for a, _ in chunk])
            sense_a = bi.vectors([_sense_item(data[a]) for a, _ in chunk])
            sense_b = bi.vectors([_sense_item(data[b]) for _, b in chunk])
            return SCALE * ((story * sense_a).sum(1) - (story * sense_b).sum(1))
        sense = bi.vectors([_sense_item(data[a]) for a, _ in chunk])  # one sense, two stories
        story_a = bi.vectors([_story_item(data[a]) for a, _ in chunk])
        story_b = bi.vectors([_story_item(data[b]) for _, b in chunk])
        return SCALE * ((story_a * sense).sum(1) - (story_b * sense).sum(1))

    def batch_loss(chunk: list[tuple[int, int]]) -> tuple[Any, int]:
        parts = [[p for p in chunk if p in by_story], [p for p in chunk if p not in by_story]]
        order = [p for part in parts for p in part]
        logit = torch.cat([logits(part, i == 0) for i, part in enumerate(parts) if part])
        target = torch.tensor(
            [(float(data[a]["average"]) - float(data[b]["average"]) + 4) / 8 for a, b in order],
            dtype=torch.float32,
            device=logit.device,
        )
        return loss_fn(logit, target), len(chunk)

    return batch_loss


def train(
    samples: Sequence[SampleFields],
    out_dir: str | Path,
    *,
    epochs: int = 2,
    seed: int = 13,
    batch_size: int = 8,
    lr: float = 2e-5,
    layer: int = -1,
    max_seq_length: int = MAX_SEQ_LENGTH,
    contrasts: str = "sense",
    log: Callable[[str], None] = print,
    on_step: Callable[[int, int], None] | None = None,
) -> BiEncoderModel:
    """Fine-tune MiniLM on the two-sense stories of labelled ``samples``; save to ``out_dir``.

    ``batch_size`` counts pairs (a story with its two senses, or with ``contrasts=
    "sense+story"`` also a sense with two stories of its setup). AdamW with 10% warm-up and
    linear decay. Returns the trained model.
    """
    if contrasts not in CONTRASTS:
        raise ValueError(f"contrasts: {contrasts!r} is not one of {', '.join(CONTRASTS)}")
    seed_all(seed)
    bi = BiEncoderModel.base(layer=layer, max_seq_length=max_seq_length)
    data = list(samples)
    pairs, n_sense = _training_pairs(data, contrasts)
    batch_loss = _pair_loss(bi, data, by_story=set(pairs[:n_sense]))
    history = train_epochs(
        bi.model,
        pairs,
        batch_loss,
        epochs=epochs,
        per_batch=batch_size,
        lr=lr,
        seed=seed,
        label="bi-encoder",
        log=log,
        on_step=on_step,
    )
    meta = {
        "architecture": ARCHITECTURE,
        "epochs": history,
        "n_samples": len(data),
        "n_pairs": len(pairs),
        "n_story_pairs": len(pairs) - n_sense,
        "contrasts": contrasts,
        "seed": seed,
        "batch_size": batch_size,
        "lr": lr,
        "layer": layer,
        "max_seq_length": max_seq_length,
    }
    bi.save(out_dir, meta)
    return bi


def load_trained(directory: str | Path) -> BiEncoderModel | CrossEncoderModel:
    """A fine-tuned model directory, whichever kind its ``train_log.json`` names."""
    meta = json.loads((Path(directory) / LOG_FILE).read_text())
    if meta.get("architecture") == ARCHITECTURE:
        return BiEncoderModel.load(directory)
    return CrossEncoderModel.load(directory)
