"""Quality of the offline CPU predictors (predictions.ml) on the AmbiStory dev set.

Everything is trained on train.json. Anything fitted on dev (a constant, component weights,
the calibration map) is reported out-of-fold: GroupKFold(5) over dev grouped by homonym.
The shipped artifact goes to --out: ranker + story-level ridge on train, a fine-tuned
MiniLM (trained on train: the bi-encoder by default, or the pointwise cross-encoder), and a
calibrator fitted on grouped out-of-fold scores of *train* (dev labels unused; dev inputs
only fix the score scale). Its dev numbers are plain held-out numbers; the nested row picks
alpha / level / fine-tuned weight inside grouped dev folds.

    python bench/ml_quality.py   # uses/trains var/models/biencoder (2 epochs, ~4 min)
    python bench/ml_quality.py --finetuned crossencoder   # var/models/ce-pointwise
    python bench/ml_quality.py --no-cross-encoder   # frozen features only (fast)
    python bench/ml_quality.py --smoke   # CI: frozen features on a few homonyms, scratch dir

Prints one line per stage and writes bench/results/ml_quality.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Sequence
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402

from predictions.evaluation import score_lists  # noqa: E402
from predictions.ml import biencoder, crossencoder, encoder, features, stacking  # noqa: E402
from predictions.ml.texts import story_text  # noqa: E402

DATA = REPO / "data" / "ambistory"  # the repository's copy of the AmbiStory files
ALPHAS = (1.0, 10.0, 100.0, 1000.0)
CE_WEIGHT = 0.5  # fixed before any fine-tuned model's dev scores were seen


def grouped_oof(
    comps: np.ndarray,
    samples: Sequence[dict],
    n_splits: int = 5,
    fixed_weights: Sequence[float] | None = None,
) -> np.ndarray:
    """Out-of-fold calibrated predictions on a labelled split, folds grouped by homonym (the
    bench's own evaluation; the shipped predictor calibrates with stacking.train_oof_components)."""
    from sklearn.model_selection import GroupKFold

    comps = np.asarray(comps, dtype=np.float64).reshape(len(comps), -1)
    groups = [s["homonym"] for s in samples]
    out = np.zeros(len(samples))
    for fit_idx, test_idx in GroupKFold(n_splits=n_splits).split(comps, groups=groups):
        cal = stacking.Calibrator().fit(comps[fit_idx], [samples[i] for i in fit_idx])
        if fixed_weights is not None:
            cal.weights = list(fixed_weights)
            cal.fit_map(cal.combine(comps[fit_idx]), [samples[i] for i in fit_idx])
        out[test_idx] = cal.apply(comps[test_idx])
    return out


def grouped_oof_select(
    candidates: dict[str, np.ndarray], samples: Sequence[dict], n_splits: int = 5
) -> tuple[np.ndarray, list[str]]:
    """Like :func:`grouped_oof`, but each fold first picks, on its fitting folds only, the
    candidate component matrix (e.g. rankers with different ridge alphas) whose first
    column has the highest Spearman there. Returns (OOF predictions, pick per fold)."""
    from scipy.stats import spearmanr
    from sklearn.model_selection import GroupKFold

    names = list(candidates)
    mats = {
        k: np.asarray(v, dtype=np.float64).reshape(len(samples), -1) for k, v in candidates.items()
    }
    y = np.array([float(s["average"]) for s in samples])
    groups = [s["homonym"] for s in samples]
    out, picks = np.zeros(len(samples)), []
    for fit_idx, test_idx in GroupKFold(n_splits=n_splits).split(y, groups=groups):
        best = max(names, key=lambda k: spearmanr(mats[k][fit_idx, 0], y[fit_idx])[0])
        picks.append(best)
        cal = stacking.Calibrator().fit(mats[best][fit_idx], [samples[i] for i in fit_idx])
        out[test_idx] = cal.apply(mats[best][test_idx])
    return out, picks


def _load(name: str, data_dir: Path) -> list[dict]:
    return list(json.loads((data_dir / f"{name}.json").read_text()).values())


def _score(
    name: str,
    dev: list[dict],
    preds,
    results: dict,
    *,
    ranking_only: bool = False,
    no_rank: bool = False,
) -> None:
    """Official metrics; ``ranking_only``: an uncalibrated score (accuracy meaningless);
    ``no_rank``: per-fold constants (Spearman meaningless)."""
    s = score_lists([d["choices"] for d in dev], [float(p) for p in preds])
    acc = None if ranking_only else round(float(s.accuracy), 4)
    rho = None if (no_rank or s.spearman is None) else round(float(s.spearman), 4)
    row = {"accuracy": acc, "spearman": rho}
    results["stages"][name] = row
    print(f"{name:<52} acc {acc}  spearman {rho}", flush=True)


def _oof_constant(dev: list[dict]) -> np.ndarray:
    from sklearn.model_selection import GroupKFold

    lo, hi = stacking.label_bounds(dev)
    grid = np.arange(1.0, 5.001, 0.01)
    out = np.zeros(len(dev))
    groups = [d["homonym"] for d in dev]
    for fit_idx, test_idx in GroupKFold(5).split(dev, groups=groups):
        hits = [((c > lo[fit_idx]) & (c < hi[fit_idx])).sum() for c in grid]
        out[test_idx] = grid[int(np.argmax(hits))]
    return out


def _throughput(dev: list[dict], n: int) -> float:
    model = encoder.load_encoder()
    texts_ = [story_text(d) + " " for d in dev[:n]]  # fresh strings, no cache
    encoder.embed(texts_[:8], model=model)  # warm-up
    start = time.perf_counter()
    encoder.embed(texts_, model=model)
    return len(texts_) / (time.perf_counter() - start)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--out", type=Path, default=REPO / "var" / "models" / "ambistory")
    ap.add_argument("--cache", type=Path, default=REPO / "var" / "cache" / "ml")
    ap.add_argument(
        "--ce-dir", type=Path, default=None, help="cross-encoder dir (default OUT/cross_encoder)"
    )
    ap.add_argument("--no-cross-encoder", action="store_true", help="no fine-tuned model")
    ap.add_argument("--finetuned", choices=("biencoder", "crossencoder"), default="biencoder")
    ap.add_argument("--bi-epochs", type=int, default=2)
    ap.add_argument("--ce-epochs", type=int, default=3)
    ap.add_argument("--ce-max-len", type=int, default=128)
    ap.add_argument(
        "--ce-freeze", type=int, default=0, help="frozen lower layers of the cross-encoder"
    )
    ap.add_argument("--ce-lr", type=float, default=3e-5)
    ap.add_argument("--ce-objective", choices=("pointwise", "pairwise"), default="pointwise")
    ap.add_argument("--results", type=Path, default=REPO / "bench" / "results" / "ml_quality.json")
    ap.add_argument(
        "--smoke",
        action="store_true",
        help="CI size: frozen features only, the samples of 8 train and 6 dev homonyms; "
        "models, cache and results in a scratch folder",
    )
    args = ap.parse_args()
    encoder.set_offline(2)
    train, dev = _load("train", args.data), _load("dev", args.data)
    if args.smoke:
        sys.path.insert(0, str(REPO / "bench"))
        from scratch import smoke_dir, smoke_subset

        scratch = smoke_dir("ml_quality")
        args.out, args.cache, args.results = scratch / "out", scratch / "cache", scratch / "r.json"
        args.no_cross_encoder = True
        train, dev = smoke_subset(train, 8), smoke_subset(dev, 6)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / ".gitignore").write_text("*\n")
    results: dict = {
        "command": "python bench/ml_quality.py " + " ".join(sys.argv[1:]),
        "n_train": len(train),
        "n_dev": len(dev),
        "protocol": "fit on train; dev-fitted parts out-of-fold with GroupKFold(5) by homonym",
        "python": platform.python_version(),
        "stages": {},
    }
    t0 = time.perf_counter()

    _score("tuned constant (OOF)", dev, _oof_constant(dev), results, no_rank=True)

    raw_dev = features.raw_features(dev, args.cache)
    cos = raw_dev[:, features.RAW_NAMES.index("cos_story_sense")]
    z_cos = stacking.antisymmetrise(cos, dev)
    _score("embedding cos(story, sense) pair diff, raw", dev, z_cos, results, ranking_only=True)
    _score(
        "embedding cos(story, sense) pair diff + calib (OOF)",
        dev,
        grouped_oof(z_cos[:, None], dev),
        results,
    )

    qp = stacking.QualityPredictor(cache_dir=args.cache)
    t = time.perf_counter()
    raw_train = features.raw_features(train, args.cache)
    z_plain = stacking.RankModel(alpha=1.0).fit(train, raw_train).score(dev, raw_dev)
    _score("MiniLM pair features + ridge (train), raw z", dev, z_plain, results, ranking_only=True)
    _score(
        "MiniLM pair features + ridge + calib (OOF)",
        dev,
        grouped_oof(z_plain[:, None], dev),
        results,
    )

    qp.reference = features.reference_means(train, args.cache)
    raw_train, raw_dev = qp.raw(train), qp.raw(dev)
    rankers = {a: stacking.RankModel(alpha=a).fit(train, raw_train) for a in ALPHAS}
    z_by_alpha = {a: r.score(dev, raw_dev) for a, r in rankers.items()}
    results["ranker_fit_seconds"] = round(time.perf_counter() - t, 1)
    for a, z in z_by_alpha.items():
        _score(
            f"+ hubness-corrected sims, ridge a={a:g}, raw z", dev, z, results, ranking_only=True
        )
    oof, picks = grouped_oof_select({a: z[:, None] for a, z in z_by_alpha.items()}, dev)
    results["ridge_alpha_picked_per_fold"] = picks
    _score(
        "+ hubness-corrected sims, ridge (alpha picked in-fold) + calib (OOF)", dev, oof, results
    )
    from scipy.stats import spearmanr

    alpha = max(ALPHAS, key=lambda a: spearmanr(z_by_alpha[a], [d["average"] for d in dev])[0])
    results["ridge_alpha_shipped"] = alpha
    qp.rank, z_rank = rankers[alpha], z_by_alpha[alpha]

    def per_alpha(extra: np.ndarray | None) -> dict:
        return {
            a: (z[:, None] if extra is None else np.hstack([z[:, None], extra]))
            for a, z in z_by_alpha.items()
        }

    oof_rows = {"ranker": oof}
    level_model = stacking.LevelModel().fit(train, raw_train)
    level = level_model.score(dev, raw_dev)
    results["level_alpha"] = level_model.alpha
    candidates = {"ranker": z_rank[:, None]}
    candidates["ranker+level"] = np.stack([z_rank, level], 1)
    oof_rows["ranker+level"] = grouped_oof_select(per_alpha(level[:, None]), dev)[0]
    _score("ranker + story-level ridge + calib (OOF)", dev, oof_rows["ranker+level"], results)

    ce = None
    label = "bi-encoder" if args.finetuned == "biencoder" else "cross-encoder"
    if not args.no_cross_encoder and args.finetuned == "biencoder":
        ce_dir = args.ce_dir or (REPO / "var" / "models" / "biencoder")
        if not (ce_dir / crossencoder.LOG_FILE).is_file():
            biencoder.train(
                train, ce_dir, epochs=args.bi_epochs, log=lambda m: print(m, flush=True)
            )
    elif not args.no_cross_encoder:
        ce_dir = args.ce_dir or (REPO / "var" / "models" / "ce-pointwise")
        if not (ce_dir / crossencoder.LOG_FILE).is_file():
            crossencoder.train(
                train,
                ce_dir,
                epochs=args.ce_epochs,
                max_seq_length=args.ce_max_len,
                freeze_layers=args.ce_freeze,
                lr=args.ce_lr,
                objective=args.ce_objective,
                log=lambda m: print(m, flush=True),
            )
    if not args.no_cross_encoder:
        log = json.loads((ce_dir / crossencoder.LOG_FILE).read_text())
        results["finetuned"] = {"kind": args.finetuned, "dir": str(ce_dir), **log}
        ce = biencoder.load_trained(ce_dir)
        t = time.perf_counter()
        ce_dev = np.array(ce.predict(dev))
        results["finetuned"]["predict_samples_per_s"] = round(
            len(dev) / (time.perf_counter() - t), 1
        )
        _score(f"{label} alone, raw rating", dev, ce_dev, results)
        ce_comps = stacking.finetuned_components(ce_dev, dev)
        _score(f"{label} pair diff, raw", dev, ce_comps[:, 0], results, ranking_only=True)
        _score(
            f"{label} pair diff + calib (OOF)",
            dev,
            grouped_oof(ce_comps[:, :1], dev),
            results,
        )
        _score(
            f"{label} diff + level + calib (OOF)",
            dev,
            grouped_oof(ce_comps, dev),
            results,
        )
        candidates[f"ranker+{label}"] = np.hstack([z_rank[:, None], ce_comps])
        oof_rows[f"ranker+{label}"] = grouped_oof_select(per_alpha(ce_comps), dev)[0]
        _score(f"ranker + {label} + calib (OOF)", dev, oof_rows[f"ranker+{label}"], results)

    # Calibrator fitted on grouped OOF scores of *train*: dev labels are never used.
    dev_inputs = [
        {k: v for k, v in d.items() if k not in ("choices", "average", "stdev")} for d in dev
    ]
    oof_tr = {
        a: stacking.train_oof_components(train, raw_train, alpha=a, with_level=True)
        for a in ALPHAS[:2]
    }

    def train_calibrated(a: float, lev: bool, w: float) -> np.ndarray:
        k = 2 if lev else 1
        base = stacking.Calibrator().fit(oof_tr[a][:, :k], train)
        comps = np.stack([z_by_alpha[a], level], 1)[:, :k]
        ce_ref = None if ce is None or not w else stacking.finetuned_components(ce_dev, dev)[:, 0]
        cal = stacking.finetuned_calibrator(base, oof_tr[a][:, :k], train, comps, ce_ref, w)
        return cal.apply(
            comps
            if ce_ref is None
            else np.hstack([comps, stacking.finetuned_components(ce_dev, dev)])
        )

    _score(
        "ranker, calib on train OOF (dev labels unused)",
        dev,
        train_calibrated(1.0, False, 0.0),
        results,
    )
    _score(
        "ranker + level, calib on train OOF (dev labels unused)",
        dev,
        train_calibrated(1.0, True, 0.0),
        results,
    )
    grid = [(a, lev, 0.0) for a in ALPHAS[:2] for lev in (False, True)]
    if ce is not None:
        name = f"ranker + level + {label} (w={CE_WEIGHT}), calib on train OOF (dev labels unused)"
        _score(name, dev, train_calibrated(1.0, True, CE_WEIGHT), results)
        grid = [(a, lev, w) for a, lev, _ in grid for w in (0.0, 0.25, 0.5, 0.75, 1.0)]
    from sklearn.model_selection import GroupKFold

    preds = {g: train_calibrated(*g) for g in grid}
    nested, picks = np.zeros(len(dev)), []
    ys = np.array([d["average"] for d in dev])
    for fit_idx, test_idx in GroupKFold(5).split(dev, groups=[d["homonym"] for d in dev]):
        best = max(grid, key=lambda g: spearmanr(preds[g][fit_idx], ys[fit_idx])[0])
        picks.append(list(best))
        nested[test_idx] = preds[best][test_idx]
    results["nested_picks_alpha_level_finetuned_weight"] = picks
    _score(
        f"nested: alpha/level/{label} weight picked in grouped dev folds (OOF)",
        dev,
        nested,
        results,
    )

    qp = stacking.QualityPredictor(cache_dir=args.cache).fit(
        train, dev_inputs, with_level=True, finetuned=ce, finetuned_weight=CE_WEIGHT
    )
    chosen = "ranker+level" + (f"+{label}" if ce is not None else "")
    results["final_components"] = chosen
    if ce is not None:
        qp.ce_dir = os.path.relpath(ce_dir, args.out)
    _score(
        f"FINAL ({chosen}), shipped predictor on dev (dev labels unused)",
        dev,
        qp.predict(dev_inputs),
        results,
    )
    path = qp.save(args.out)
    results["artifact"] = {"path": str(path), "calibrator": qp.calibrator.to_dict()}
    results["embedding_samples_per_s"] = round(_throughput(dev, 256), 1)
    print(f"embedding throughput: {results['embedding_samples_per_s']} samples/s", flush=True)
    if "finetuned" in results:
        secs = [round(e["seconds"], 1) for e in results["finetuned"]["epochs"]]
        print(f"{label} seconds per epoch: {secs}", flush=True)
    results["wall_seconds"] = round(time.perf_counter() - t0, 1)
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.write_text(json.dumps(results, indent=1) + "\n")
    print(f"wrote {args.results} and {path}", flush=True)


if __name__ == "__main__":
    main()
