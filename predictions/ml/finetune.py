"""What the fine-tuning recipes (:mod:`.crossencoder`, :mod:`.biencoder`) share.

Seeding, grouping samples by story, the epoch loop (shuffle, AdamW with 10% warm-up then
linear decay, gradient clipping, per-epoch loss and seconds) and writing a model directory
with its ``train_log.json``. Each recipe brings only its batch loss.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .texts import SampleFields, story_groups, story_key

__all__ = ["LOG_FILE", "seed_all", "story_units", "train_epochs", "save_directory"]

LOG_FILE = "train_log.json"


def seed_all(seed: int) -> None:
    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def story_units(data: Sequence[SampleFields]) -> list[list[int]]:
    """Indices of ``data`` grouped by story (both senses of one story together)."""
    return story_groups([story_key(sample) for sample in data])


def train_epochs(
    model: Any,
    units: list,
    batch_loss: Callable[[list], tuple[Any, int]],
    *,
    epochs: int,
    per_batch: int,
    lr: float,
    seed: int,
    label: str,
    log: Callable[[str], None],
    on_step: Callable[[int, int], None] | None = None,
) -> list[dict]:
    """Train ``model`` for ``epochs`` over ``units`` (shuffled in place each epoch, in
    batches of ``per_batch``); ``batch_loss(batch) -> (loss tensor, n items)``. Returns
    the per-epoch history ``[{"epoch", "loss", "seconds"}]`` and logs one line per epoch.
    ``on_step(done, steps)`` is told the optimiser steps taken so far (0 before the first)."""
    import torch

    params = [p for p in model.parameters() if p.requires_grad]
    steps = epochs * math.ceil(len(units) / per_batch)
    warmup = max(1, steps // 10)
    optim = torch.optim.AdamW(params, lr=lr, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.LambdaLR(
        optim, lambda s: min((s + 1) / warmup, max(0.0, (steps - s) / steps))
    )
    rng = random.Random(seed)
    history: list[dict] = []
    step = 0
    if on_step is not None:
        on_step(0, steps)
    for epoch in range(epochs):
        model.train()
        rng.shuffle(units)
        started, total, n = time.perf_counter(), 0.0, 0
        for start in range(0, len(units), per_batch):
            loss, items = batch_loss(units[start : start + per_batch])
            optim.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            optim.step()
            sched.step()
            total += float(loss.detach()) * items
            n += items
            step += 1
            if on_step is not None:
                on_step(step, steps)
        entry = {
            "epoch": epoch + 1,
            "loss": total / max(1, n),
            "seconds": time.perf_counter() - started,
        }
        history.append(entry)
        log(f"{label} epoch {epoch + 1}: loss {entry['loss']:.4f} ({entry['seconds']:.1f} s)")
    return history


def save_directory(model: Any, tokenizer: Any, directory: str | Path, meta: dict | None) -> None:
    """The model and tokenizer (git-ignored) and, with ``meta``, the training log."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / ".gitignore").write_text("*\n")
    model.save_pretrained(str(directory))
    tokenizer.save_pretrained(str(directory))
    if meta is not None:
        (directory / LOG_FILE).write_text(json.dumps(meta, indent=1))
