"""How much the shipped ``quality`` predictor's dev figures move with the bi-encoder's seed.

For each seed: fine-tune the bi-encoder on train (2 epochs, as the backend does), fit the
quality predictor on train exactly as ``manage.py predict --backend quality --fit-split
train`` does (no dev labels), and score dev with the official metrics. About 5-7 minutes
per seed on two CPU cores; not part of ``make bench``.

    python bench/ml_seeds.py [--seeds 13 1 2 3] [--cache var/quality-cache]
    python bench/ml_seeds.py --smoke   # CI: one seed, one epoch on a few homonyms
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[13, 1, 2, 3])
    ap.add_argument("--cache", default=str(REPO / "var" / "quality-cache"))
    ap.add_argument("--models", type=Path, default=REPO / "var" / "models" / "seeds")
    ap.add_argument(
        "--smoke",
        action="store_true",
        help="CI size: seed 13, 1 epoch on the train samples of 3 homonyms, dev of 5; "
        "models and cache in a scratch folder",
    )
    args = ap.parse_args()
    if args.smoke:
        sys.path.insert(0, str(REPO / "bench"))
        from scratch import smoke_dir

        scratch = smoke_dir("ml_seeds")
        args.seeds, args.cache, args.models = [13], str(scratch / "cache"), scratch / "models"

    from predictions.backends.quality import FINETUNE_SETTINGS, FINETUNE_WEIGHT
    from predictions.evaluation import score_lists
    from predictions.ml import biencoder, crossencoder, encoder, stacking

    encoder.set_offline(2)
    data = REPO / "data" / "ambistory"
    train = list(json.loads((data / "train.json").read_text()).values())
    dev = list(json.loads((data / "dev.json").read_text()).values())
    settings = {k: v for k, v in FINETUNE_SETTINGS.items() if k not in ("version", "seed")}
    if args.smoke:
        from scratch import smoke_subset

        train, dev, settings["epochs"] = smoke_subset(train, 3), smoke_subset(dev, 5), 1
    rows = []
    for seed in args.seeds:
        folder = args.models / f"biencoder-seed{seed}"
        if not (folder / crossencoder.LOG_FILE).is_file():
            biencoder.train(
                train, folder, seed=seed, log=lambda m: print(m, flush=True), **settings
            )
        predictor = stacking.QualityPredictor(cache_dir=args.cache).fit(
            train, with_level=True, finetuned=folder, finetuned_weight=FINETUNE_WEIGHT
        )
        s = score_lists([d["choices"] for d in dev], predictor.predict(dev))
        rows.append((seed, s.accuracy, s.spearman))
        print(f"seed {seed:>3}: accuracy {s.accuracy:.4f}  spearman {s.spearman:.4f}", flush=True)
    accs, rhos = [r[1] for r in rows], [r[2] for r in rows]
    print(f"accuracy {min(accs):.4f}-{max(accs):.4f}, spearman {min(rhos):.4f}-{max(rhos):.4f}")


if __name__ == "__main__":
    main()
