"""Benchmark: the project's scorer against the official scorer's algorithm.

The official SemEval-2026 Task 5 script finds each prediction's reference by a linear search
over the reference list and computes mean and SD per sample with ``statistics``. This bench
re-implements that algorithm faithfully (reference below), checks that both give identical
numbers on 100,000 synthetic samples, and prints both times and the ratio.

    python bench/score.py [--n 100000]
    python bench/score.py --smoke   # CI: 2,000 samples, identical results required
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from predictions.evaluation import parse_predictions, parse_reference, score  # noqa: E402


def write_synthetic(folder: Path, n: int, seed: int = 7) -> tuple[Path, Path]:
    rng = random.Random(seed)
    ref, pred = folder / "ref.jsonl", folder / "pred.jsonl"
    with open(ref, "w") as r, open(pred, "w") as p:
        for i in range(n):
            labels = [rng.randint(1, 5) for _ in range(rng.choice((5, 5, 5, 6)))]
            r.write(json.dumps({"id": str(i), "label": labels}) + "\n")
        order = list(range(n))
        rng.shuffle(order)  # predictions need not come in reference order
        for i in order:
            value = rng.choice((rng.randint(1, 5), round(rng.uniform(1, 5), 3)))
            p.write(json.dumps({"id": str(i), "prediction": value}) + "\n")
    return ref, pred


def official_algorithm(ref_path: Path, pred_path: Path) -> dict:
    """The official script's algorithm: per prediction, a linear search for its reference."""
    from scipy.stats import spearmanr

    with open(ref_path) as handle:
        gold = [json.loads(line) for line in handle]
    with open(pred_path) as handle:
        preds = [json.loads(line) for line in handle]
    correct, averages, values = 0, [], []
    for entry in preds:
        match = None
        for candidate in gold:  # linear search, as in the official script
            if candidate["id"] == entry["id"]:
                match = candidate
                break
        labels = match["label"]
        avg = sum(labels) / len(labels)
        sd = statistics.stdev(labels)
        value = entry["prediction"]
        if (avg - sd) < value < (avg + sd) or abs(avg - value) < 1:
            correct += 1
        averages.append(avg)
        values.append(value)
    rho = spearmanr(values, averages).statistic
    return {"accuracy": correct / len(preds), "correct": correct, "spearman": float(rho)}


def project_scorer(ref_path: Path, pred_path: Path) -> dict:
    with open(ref_path) as handle:
        reference = parse_reference(handle)
    with open(pred_path) as handle:
        predictions = parse_predictions(handle, list(reference))
    result = score(reference, predictions)
    return {"accuracy": result.accuracy, "correct": result.correct, "spearman": result.spearman}


def timed(fn, *args) -> tuple[float, dict]:
    start = time.perf_counter()
    result = fn(*args)
    return time.perf_counter() - start, result


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--target", type=float, default=50.0)
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="CI size: 2,000 samples; the exit status then checks identity, not speed",
    )
    args = parser.parse_args()
    if args.smoke:
        args.n, args.target = 2_000, 0.0
    import scipy.stats  # noqa: F401  (imported once up front so neither timing pays for it)

    with tempfile.TemporaryDirectory() as tmp:
        ref, pred = write_synthetic(Path(tmp), args.n)
        ours_s, ours = timed(project_scorer, ref, pred)
        print(f"project scorer:      {ours_s:9.3f} s  {ours}", flush=True)
        official_s, official = timed(official_algorithm, ref, pred)
        print(f"official algorithm:  {official_s:9.3f} s  {official}")
    same = (
        ours["correct"] == official["correct"]
        and ours["accuracy"] == official["accuracy"]
        and abs(ours["spearman"] - official["spearman"]) <= 1e-12
    )
    ratio = official_s / ours_s
    print(f"identical results: {same}")
    print(f"speed-up: {ratio:.1f}x on {args.n:,} samples (target >= {args.target:.0f}x)")
    return 0 if same and ratio >= args.target else 1


if __name__ == "__main__":
    sys.exit(main())
