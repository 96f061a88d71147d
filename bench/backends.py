"""Benchmark: the embedding backend's throughput and the cross-encoder's training time.

1. Embedding backend (frozen all-MiniLM-L6-v2, three texts per sample, pair features):
   samples/s over dev samples with an empty cache, against the raw encoder embedding the
   same three texts per sample in the same run (the reference).
2. Cross-encoder fine-tuning: seconds per epoch on a train subset, against one inference
   pass over the same subset (the reference), and the epoch time extrapolated to the whole
   train split (the issue's budget: training within about 15 minutes on 2 CPU cores).
3. Bi-encoder fine-tuning (the one the ``quality`` backend uses): the same measurement.

Needs no database: samples are read from data/ambistory/.

    python bench/backends.py [--samples 192] [--train 96]
    python bench/backends.py --smoke   # CI: 4 samples each, one short epoch per model
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def samples(split: str) -> list[dict]:
    data = json.loads((ROOT / "data" / "ambistory" / f"{split}.json").read_text())
    return [dict(sample, id=key) for key, sample in data.items()]


def timed(fn) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def bench_embedding(dev: list[dict]) -> None:
    from predictions.backends.embedding import EmbeddingBackend
    from predictions.ml.encoder import load_encoder
    from predictions.ml.texts import field, sense_text

    encoder = load_encoder()
    encoder.encode(["warm up"], show_progress_bar=False)
    texts = [f"{field(s, 'sentence')} {field(s, 'ending')}" for s in dev]
    texts += [sense_text(s) for s in dev] + [field(s, "example_sentence") for s in dev]
    # The reference encodes the backend's own 3 texts per sample, duplicates included.
    reference = timed(lambda: encoder.encode(texts, batch_size=64, show_progress_bar=False))
    backend = EmbeddingBackend(mapping="linear", batch_size=64)
    elapsed = timed(lambda: backend.predict_batch(dev))
    n = len(dev)
    print(f"embedding backend: {n / elapsed:8.1f} samples/s ({n} samples, {elapsed:.1f} s)")
    print(
        f"raw encoder (ref): {n / reference:8.1f} samples/s ({len(texts)} texts, {reference:.1f} s)"
    )
    print(f"ratio backend/reference: {reference / elapsed:.2f} (>1: repeated texts encoded once)")


def bench_finetuning(label: str, model_class, fit, train: list[dict], n_train: int) -> None:
    subset = train[:n_train]
    base = model_class.base()
    base.predict(subset[:4])
    reference = timed(lambda: base.predict(subset, batch_size=16))
    with tempfile.TemporaryDirectory() as folder:
        log: list[str] = []
        fit(subset, folder, epochs=1, log=log.append)
        epoch = json.loads((Path(folder) / "train_log.json").read_text())["epochs"][0]["seconds"]
    full = epoch * len(train) / n_train
    print(f"{label} training: {epoch:.1f} s/epoch on {n_train} samples")
    print(f"inference pass (ref):   {reference:.1f} s on the same {n_train} samples")
    print(f"ratio training/inference: {epoch / reference:.1f}")
    print(f"extrapolated to all {len(train)} train samples: {full:.0f} s/epoch")


def bench_crossencoder(train: list[dict], n_train: int) -> None:
    from predictions.ml import crossencoder

    bench_finetuning(
        "cross-encoder", crossencoder.CrossEncoderModel, crossencoder.train, train, n_train
    )


def bench_biencoder(train: list[dict], n_train: int) -> None:
    from predictions.ml import biencoder

    bench_finetuning("bi-encoder", biencoder.BiEncoderModel, biencoder.train, train, n_train)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=192, help="dev samples to embed")
    parser.add_argument("--train", type=int, default=96, help="train samples per epoch")
    parser.add_argument(
        "--smoke", action="store_true", help="CI size: 4 samples embedded, 4 per training epoch"
    )
    args = parser.parse_args()
    if args.smoke:
        args.samples, args.train = 4, 4
    bench_embedding(samples("dev")[: args.samples])
    bench_crossencoder(samples("train"), args.train)
    bench_biencoder(samples("train"), args.train)


if __name__ == "__main__":
    main()
