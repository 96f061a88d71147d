"""Grouped cross-validation estimates of backend configurations over train+dev (issue 14).

Each configuration goes through ``manage.py crossvalidate``'s code path
(:func:`predictions.selection.cross_validate` with a fresh backend per fold, fitted on the
other folds only): folds grouped by homonym, repeated over seeds, mean and 95% interval
(corrected resampled t) of the official accuracy and Spearman over the fold x seed
scores. Results are merged into bench/results/ml_cv.json after every configuration, so an
interrupted run keeps what it finished.

    python bench/ml_cv.py                       # the cheap configurations, 5 folds x 3 seeds
    python bench/ml_cv.py --only quality-frozen --seeds 1
    python bench/ml_cv.py --smoke   # CI: 2 cheap configurations on 6 homonyms, 2 folds
    python bench/ml_cv.py --only quality-shipped --seeds 1   # fine-tunes per fold: hours here
    python bench/ml_cv.py --compare quality-frozen quality-ranker   # what the level adds
    python bench/ml_cv.py --only quality-shipped --seeds 3 --add-seeds  # seeds 1, 2 beside 0

``--add-seeds`` runs only the seeds of 0..N-1 (or of ``--seed-list``) that the stored
result of the configuration lacks, and stores the old and new fold scores together (the
summary over all of them).

``--compare A B`` runs nothing: it reads both results and stores the interval of the
per-fold differences A - B on the folds both were scored on (same seeds, same samples).

Needs no database. Prints one line per fold.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ambisite.settings")
os.environ.setdefault("DEBUG", "1")

CACHE = "var/quality-cache"
# name -> (backend, params, what it measures). Cheap ones first.
NO_CONTEXT = {"with_context": False}  # as measured before the ranker's setup context
CONFIGS: dict[str, tuple[str, dict, str]] = {
    "constant-4": ("constant", {}, "the majority rating, nothing fitted"),
    "constant-tuned": ("constant", {"tune": True}, "one constant tuned for accuracy"),
    "quality-ranker": (
        "quality",
        {"encoder": "none", "with_level": False, "cache": CACHE, **NO_CONTEXT},
        "MiniLM pair features + ridge ranker, calibrated on grouped OOF scores of the fit folds",
    ),
    "quality-frozen-nohub": (
        "quality",
        {"encoder": "none", "with_hub": False, "cache": CACHE, **NO_CONTEXT},
        "ranker + level without the hubness-corrected similarities",
    ),
    "quality-frozen-nocontext": (
        "quality",
        {"encoder": "none", "cache": CACHE, **NO_CONTEXT},
        "ranker + story-level ridge (frozen MiniLM only), no setup context",
    ),
    "quality-frozen": (
        "quality",
        {"encoder": "none", "cache": CACHE},
        "ranker with its setup context + story-level ridge (frozen MiniLM only)",
    ),
    "quality-shipped-nocontext": (
        "quality",
        {"cache": CACHE, **NO_CONTEXT},
        "ranker + level + bi-encoder fine-tuned on the fit folds (w=0.5), no setup context:"
        " the predictor shipped before 2026-11-26",
    ),
    "quality-shipped": (
        "quality",
        {"cache": CACHE},
        "ranker with its setup context + level + bi-encoder fine-tuned on the fit folds"
        " (w=0.5): the shipped predictor",
    ),
    # issue 14 items 2 and 4, on the shipped predictor's fine-tuned bi-encoders (kept per fold)
    "quality-shipped-s14": (
        "quality",
        {"cache": CACHE, "finetune_seeds": [14], **NO_CONTEXT},
        "as quality-shipped-nocontext, the bi-encoder fine-tuned with seed 14 instead of 13",
    ),
    "quality-shipped-2seeds": (
        "quality",
        {"cache": CACHE, "finetune_seeds": [13, 14], **NO_CONTEXT},
        "as quality-shipped-nocontext, the ratings of two bi-encoders (seeds 13, 14) averaged",
    ),
    "quality-shipped-w1-nocontext": (
        "quality",
        {"cache": CACHE, "finetune_weight": 1.0, **NO_CONTEXT},
        "as quality-shipped-nocontext, bi-encoder weight 1.0",
    ),
    "quality-shipped-w1": (
        "quality",
        {"cache": CACHE, "finetune_weight": 1.0},
        "as quality-shipped, bi-encoder weight 1.0",
    ),
    "quality-shipped-2seeds-w1": (
        "quality",
        {"cache": CACHE, "finetune_seeds": [13, 14], "finetune_weight": 1.0, **NO_CONTEXT},
        "two bi-encoders (seeds 13, 14) averaged, weight 1.0, no setup context",
    ),
    "quality-shipped-nohub": (
        "quality",
        {"cache": CACHE, "with_hub": False, **NO_CONTEXT},
        "as quality-shipped-nocontext, without the hubness-corrected similarities",
    ),
}
CHEAP = (
    "constant-4",
    "constant-tuned",
    "quality-ranker",
    "quality-frozen-nohub",
    "quality-frozen-nocontext",
    "quality-frozen",
)


def share_finetuned_ratings() -> None:
    """Bench only: remember each fine-tuned bi-encoder set's ratings per sample id within this
    process, so that several configurations on the same folds (the same fine-tuned models,
    found again under ``var/artifacts``) run each model over each sample once. The ratings
    depend on the model and the sample's texts only, so the scores do not change."""
    import numpy as np

    from predictions.ml import stacking

    original = stacking.QualityPredictor._finetuned_ratings
    memo: dict[tuple, dict[str, float]] = {}

    def ratings(self, samples):
        if not self.finetuned_dirs:
            return original(self, samples)
        store = memo.setdefault(tuple(self.finetuned_dirs), {})
        missing = [s for s in samples if str(s["id"]) not in store]
        if missing:
            for s, value in zip(missing, original(self, missing)):
                store[str(s["id"])] = float(value)
        return np.array([store[str(s["id"])] for s in samples])

    stacking.QualityPredictor._finetuned_ratings = ratings  # type: ignore[method-assign]


def stored_result(results: Path, name: str, folds: int):
    """The fold scores stored for configuration ``name``, its wall time and command, so that
    ``--add-seeds`` runs the other seeds only. Refuses a result with another fold count."""
    from predictions.selection import CVResult, FoldScore

    data = json.loads(results.read_text()) if results.is_file() else {}
    entry = data.get("configs", {}).get(name)
    if not entry:
        return CVResult(), 0.0, ""
    if entry["n_folds"] != folds:
        raise SystemExit(f"{name}: stored with {entry['n_folds']} folds, not {folds}")
    return (
        CVResult(
            [FoldScore(**row) for row in entry["folds"]], list(entry.get("pooled_per_seed", []))
        ),
        float(entry.get("wall_seconds", 0.0)),
        entry.get("command", ""),
    )


def compare(results: Path, a: str, b: str) -> None:
    from predictions.selection import paired_difference

    data = json.loads(results.read_text())
    rows = {name: data["configs"][name]["folds"] for name in (a, b)}
    entry = {}
    for metric in ("accuracy", "spearman"):
        diff = paired_difference(rows[a], rows[b], metric)
        entry[metric] = diff.as_dict() if diff else None
        if diff:
            print(f"{a} - {b} {metric}: {diff.mean:+.4f} [{diff.low:+.4f}, {diff.high:+.4f}]")
    data.setdefault("comparisons", {})[f"{a} - {b}"] = entry
    results.write_text(json.dumps(data, indent=1) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--only", nargs="+", choices=sorted(CONFIGS), default=list(CHEAP))
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seeds", type=int, default=3, help="repeats: seeds 0..N-1")
    ap.add_argument("--seed-list", type=int, nargs="+", help="these fold seeds instead of 0..N-1")
    ap.add_argument("--results", type=Path, default=REPO / "bench" / "results" / "ml_cv.json")
    ap.add_argument(
        "--add-seeds", action="store_true", help="run only seeds the stored result lacks"
    )
    ap.add_argument("--compare", nargs=2, metavar=("A", "B"), help="paired A - B, no runs")
    ap.add_argument(
        "--smoke",
        action="store_true",
        help="CI size: constant-tuned and quality-ranker (frozen features), the samples of 6 "
        "homonyms, 2 folds, 1 seed; cache and results in a scratch folder",
    )
    args = ap.parse_args()
    smoke_cache = None
    if args.smoke:
        sys.path.insert(0, str(REPO / "bench"))
        from scratch import smoke_dir

        scratch = smoke_dir("ml_cv")
        smoke_cache = str(scratch / "quality-cache")
        args.only, args.folds, args.seeds = ["constant-tuned", "quality-ranker"], 2, 1
        args.seed_list, args.results = None, scratch / "ml_cv.json"
    if args.compare:
        compare(args.results, *args.compare)
        return
    os.chdir(REPO)  # the cache path in the params is relative to the repository

    import django

    django.setup()
    from predictions.management.commands.crossvalidate import (
        backend_fit_predict,
        labelled_samples,
        write_result,
    )
    from predictions.management.commands.predict import show_progress
    from predictions.selection import CVResult, cross_validate

    show_progress(1)
    share_finetuned_ratings()
    samples = labelled_samples(["train", "dev"], REPO / "data" / "ambistory")
    if args.smoke:
        from scratch import smoke_subset

        samples = smoke_subset(samples, homonyms=6)
    wanted = args.seed_list or list(range(args.seeds))
    for name in args.only:
        backend, params, what = CONFIGS[name]
        if smoke_cache and "cache" in params:
            params = {**params, "cache": smoke_cache}
        print(f"== {name}: {backend} {json.dumps(params)} ({what})", flush=True)
        started = time.perf_counter()
        stored, stored_wall, stored_command = (
            stored_result(args.results, name, args.folds)
            if args.add_seeds
            else (CVResult(), 0.0, "")
        )
        done = {f.seed for f in stored.folds}
        result = cross_validate(
            samples,
            backend_fit_predict(backend, params),
            folds=args.folds,
            seeds=[seed for seed in wanted if seed not in done],
            log=lambda line: print(line, flush=True),
        )
        result = CVResult(stored.folds + result.folds, stored.pooled + result.pooled)
        seeds = sorted({f.seed for f in result.folds})
        summary = result.summary()
        for metric in ("accuracy", "spearman"):
            s = summary[metric]
            if s:
                print(
                    f"{name} {metric}: {s['mean']:.4f} [{s['low']:.4f}, {s['high']:.4f}]",
                    flush=True,
                )
        write_result(
            args.results,
            name,
            {
                "backend": backend,
                "params": params,
                "what": what,
                "splits": ["train", "dev"],
                "n_samples": len(samples),
                "n_folds": args.folds,
                "seeds": seeds,
                "wall_seconds": round(time.perf_counter() - started, 1) + stored_wall,
                "python": platform.python_version(),
                "command": (stored_command + "; then " if stored_command else "")
                + "python bench/ml_cv.py "
                + " ".join(sys.argv[1:]),
                **result.as_dict(),
            },
        )


if __name__ == "__main__":
    main()
