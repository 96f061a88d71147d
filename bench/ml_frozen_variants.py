"""Variants of the frozen quality predictor under grouped CV (issue 14: what did not help).

Each variant changes one thing in the frozen predictor (``quality`` with ``encoder:
"none"``: ranker + story-level ridge on MiniLM features, calibrated on grouped out-of-fold
scores; as it was before the ranker's setup context) and is scored on the same folds as
the unchanged one (``base``), with the paired
difference of each fold. Fold seeds 2, 3 and 4 by default: seeds 0 and 1 carry the shipped
predictor's estimate in docs/models.md, so that choices made here cannot lean on them.

    python bench/ml_frozen_variants.py                      # every variant, seeds 2 3 4
    python bench/ml_frozen_variants.py --only base layers-add --seeds 2
    python bench/ml_frozen_variants.py --smoke   # CI: two variants on 8 homonyms, one seed

Variants:

* ``layers-add`` / ``layers-replace``: the homonym's token vectors from the sum of MiniLM's
  last four layers (the usual feature-based word-sense recipe) beside, or instead of, the
  last layer's in the token-to-token similarities;
* ``alpha-inner``: the ranker's ridge alpha picked per fit by an inner grouped CV
  (Spearman) from 0.1 to 1000 instead of the fixed 1.0; ``alpha-10``: fixed at 10;
* ``dominance``: the cosine of the bare homonym with each sense text, gloss and example (a
  prior for the dominant sense);
* ``diag-bilinear``: a third component, a ridge on the products of the story's and the
  sense's homonym vectors (a learned weighting of MiniLM's dimensions), alpha by inner CV,
  combined by the calibrator on grouped out-of-fold scores;
* ``rank-hgb`` / ``rank-ridge+hgb``: the ranker's ridge replaced by (or averaged with) a
  gradient-boosted tree model (scikit-learn's HistGradientBoostingRegressor) on the same
  contrast features and pair targets;
* ``rank-noise-weighted``: the ranker's ridge weighs each training pair by the inverse of
  its target's noise (the variance of a difference of two means of a few ratings);
* ``maps-by-ending``: the rating map fitted separately for stories with and without an
  ending;
* ``setup-context``: the ranker's second stage (``SetupContext``, shipped since 2026-11-26):
  its score read against the same sense's scores on the setup's other stories;
  ``setup-context-mean``: the same with the setup mean alone; ``other-ending``: no second
  stage, but raw features less the same sense's on the setup's other ending beside them;
* ``wordnet`` / ``wordnet-cos`` / ``wordnet-count``: the judged sense looked up in WordNet
  3.0 (its definition matched against the gloss, after a plain lemmatisation of the
  homonym): cosines of the story, the ending and the story without ending with the sense
  text extended by the synset's lemmas, its hypernym (lemmas and definition) and WordNet's
  examples; and the sense's SemCor tag count, its share of the lemma's counts and its sense
  rank. WordNet's files are not in the repository: ``apt-get download wordnet-base
  wordnet-sense-index`` and ``dpkg-deb -x`` them, then ``--wordnet DIR/usr/share/wordnet``
  (or install both packages: ``/usr/share/wordnet``, the default).

Results (mean over the folds, paired differences from ``base``) go to
``bench/results/ml_frozen_variants.json``. Needs no database; uses the feature cache.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ambisite.settings")
os.environ.setdefault("DEBUG", "1")

import ml_frozen_features as features  # noqa: E402
import numpy as np  # noqa: E402
from ml_frozen_features import (  # noqa: E402
    TOKEN_PAIRS,
    WordNet,
    diag_features,
    dominance_columns,
    layer_columns,
    wordnet_columns,
)

# the frozen predictor every variant changes one thing of: ranker + level, as it was before
# the ranker's setup context (the ``setup-context`` variants add that)
UNCHANGED = {"with_level": True, "with_context": False}


def tree_ranked_predictor(kind: str):
    """A QualityPredictor class whose ranker's ridge is replaced by (``"hgb"``) or averaged
    with (``"mix"``) gradient-boosted trees on the same contrast features and pair targets
    (:attr:`QualityPredictor.rank_class`, read by the ranker and its out-of-fold fits)."""
    from predictions.ml.features import contrast_features, partner_index
    from predictions.ml.stacking import QualityPredictor, RankModel, antisymmetrise

    class TreeRank(RankModel):
        def fit(self, samples, raw):
            from sklearn.ensemble import HistGradientBoostingRegressor

            if kind == "mix":
                super().fit(samples, raw)
            else:  # the trees alone need only the feature centre
                self.raw_mean_ = raw.mean(0)
            X = contrast_features(samples, raw, self.raw_mean_)
            y = np.array([float(s["average"]) for s in samples])
            partners = partner_index(samples)
            keep = [i for i, p in enumerate(partners) if p is not None]
            self.trees = HistGradientBoostingRegressor(
                max_iter=300, learning_rate=0.05, max_leaf_nodes=15, min_samples_leaf=20,
                l2_regularization=1.0, random_state=0,
            ).fit(X[keep], np.array([y[i] - y[partners[i]] for i in keep]))  # fmt: skip
            return self

        def score(self, samples, raw):
            X = contrast_features(samples, raw, self.raw_mean_)
            trees = antisymmetrise(self.trees.predict(X), samples)
            return trees if kind == "hgb" else (super().score(samples, raw) + trees) / 2

    class Variant(QualityPredictor):
        rank_class = TreeRank

    return Variant


def predictor_with_raw(extra: Callable | None, replace: bool = False):
    """A QualityPredictor class whose raw features gain (or swap in) ``extra`` columns."""
    from predictions.ml.features import RAW_NAMES
    from predictions.ml.stacking import QualityPredictor

    swap = [RAW_NAMES.index(name) for name, _, _ in TOKEN_PAIRS]

    class Variant(QualityPredictor):
        def raw(self, samples):
            raw = super().raw(samples)
            if extra is None:
                return raw
            cols = extra(list(samples))
            if not replace:
                return np.hstack([raw, cols])
            raw = raw.copy()
            raw[:, swap] = cols
            return raw

    return Variant


def inner_alpha(fit, grid=(0.1, 1.0, 10.0, 100.0, 1000.0)) -> float:
    """The ranker alpha with the best grouped out-of-fold Spearman on ``fit``."""
    from scipy.stats import spearmanr
    from sklearn.model_selection import GroupKFold

    from predictions.ml.features import reference_means
    from predictions.ml.stacking import QualityPredictor, RankModel

    p = QualityPredictor(cache_dir=features.CACHE)
    p.reference = reference_means(fit, features.CACHE)
    raw = p.raw(fit)
    y = np.array([float(s["average"]) for s in fit])
    best = (-2.0, 1.0)
    for alpha in grid:
        oof = np.zeros(len(fit))
        for fi, ti in GroupKFold(5).split(raw, groups=[s["homonym"] for s in fit]):
            model = RankModel(alpha=alpha).fit([fit[i] for i in fi], raw[fi])
            oof[ti] = model.score([fit[i] for i in ti], raw[ti])
        best = max(best, (float(spearmanr(oof, y)[0]), alpha))
    return best[1]


def diag_component(fit, X, alpha):
    """Fitted ridge (no intercept) on pair-difference products -> antisymmetric scorer."""
    from sklearn.linear_model import Ridge

    from predictions.ml.features import partner_index
    from predictions.ml.stacking import antisymmetrise

    y = np.array([float(s["average"]) for s in fit])
    partners = partner_index(fit)
    keep = [i for i, p in enumerate(partners) if p is not None]
    sd = X.std(0) + 1e-9
    ridge = Ridge(alpha=alpha, fit_intercept=False).fit(
        X[keep] / sd, np.array([y[i] - y[partners[i]] for i in keep])
    )
    return lambda samples, Xs: antisymmetrise((Xs / sd) @ ridge.coef_, samples)


def diag_fit_predict(fit, test):
    from scipy.stats import spearmanr
    from sklearn.model_selection import GroupKFold

    from predictions.ml.features import reference_means
    from predictions.ml.stacking import (
        Calibrator,
        LevelModel,
        QualityPredictor,
        RankModel,
        finetuned_calibrator,
        train_oof_components,
    )

    p = QualityPredictor(cache_dir=features.CACHE)
    p.reference = reference_means(fit, features.CACHE)
    raw_fit, raw_test = p.raw(fit), p.raw(test)
    rank, level = RankModel().fit(fit, raw_fit), LevelModel().fit(fit, raw_fit)
    oof = train_oof_components(fit, raw_fit, with_level=True)
    X_fit, X_test = diag_features(fit), diag_features(test)
    y = np.array([float(s["average"]) for s in fit])
    folds = list(GroupKFold(5).split(X_fit, groups=[s["homonym"] for s in fit]))

    def oof_diag(alpha):
        out = np.zeros(len(fit))
        for fi, ti in folds:
            scorer = diag_component([fit[i] for i in fi], X_fit[fi], alpha)
            out[ti] = scorer([fit[i] for i in ti], X_fit[ti])
        return out

    alpha = max((spearmanr(oof_diag(a), y)[0], a) for a in (10.0, 100.0, 1000.0, 10000.0))[1]
    comps_oof = np.column_stack([oof, oof_diag(alpha)])
    base = Calibrator().fit(comps_oof, fit)
    calibrator = finetuned_calibrator(base, comps_oof, fit, comps_oof, None, 0.5)
    comps = np.column_stack(
        [
            rank.score(test, raw_test),
            level.score(test, raw_test),
            diag_component(fit, X_fit, alpha)(test, X_test),
        ]
    )
    return list(np.clip(calibrator.apply(comps), 1.0, 5.0))


def noise_weighted_predictor():
    """A QualityPredictor class whose ranker weighs each training pair by the inverse of
    its target's noise: the variance of a difference of two means of ratings,
    ``sd_a^2 / n_a + sd_b^2 / n_b``, plus the median of that over the pairs (so that the
    model's own error keeps the weights within a few times of each other)."""
    from annotations.official import label_sd
    from predictions.ml.stacking import QualityPredictor, RankModel

    def noise(sample) -> float:
        return label_sd(sample["choices"]) ** 2 / len(sample["choices"])

    class NoiseWeighted(RankModel):
        def pair_weights(self, pairs):
            var = np.array([noise(a) + noise(b) for a, b in pairs])
            weights = 1.0 / (var + np.median(var))
            return weights / weights.mean()

    class Variant(QualityPredictor):
        rank_class = NoiseWeighted

    return Variant


def maps_by_ending(fit, test):
    """The frozen predictor with its rating map fitted twice on the grouped out-of-fold
    scores: once on the stories with an ending, once on those without (whose ratings
    cluster nearer the middle), each applied to its own kind of story."""
    from predictions.ml.stacking import Calibrator, QualityPredictor, train_oof_components
    from predictions.ml.texts import field

    predictor = QualityPredictor(cache_dir=features.CACHE).fit(fit, **UNCHANGED)
    oof = train_oof_components(fit, predictor.raw(fit), with_level=True)
    z_fit = predictor.calibrator.combine(oof)  # the standardised score, as the map sees it
    z_test = predictor.calibrator.combine(predictor.components(test))
    ends_fit = np.array([bool(field(s, "ending")) for s in fit])
    ends_test = np.array([bool(field(s, "ending")) for s in test])
    out = np.zeros(len(test))
    for kind in (True, False):
        rows = np.flatnonzero(ends_fit == kind)
        unit = Calibrator(weights=[1.0], stds=[1.0])
        unit.fit_map(z_fit[rows], [fit[i] for i in rows])
        out[ends_test == kind] = unit.apply(z_test[ends_test == kind, None])
    return list(np.clip(out, 1.0, 5.0))


def setup_context_predictor(columns: Sequence[int] | None = None, other_ending: bool = False):
    """A frozen predictor with the ranker's setup context (``columns``: its ridge on those
    columns of :func:`setup_context` only); with ``other_ending``, no context but the raw
    features less the same features of the same sense on the setup's other ending beside
    them (the contrast as features of the ranker and the level instead of a second stage)."""
    from sklearn.linear_model import Ridge

    from predictions.ml.features import partner_index, setup_views
    from predictions.ml.stacking import QualityPredictor, SetupContext, setup_context

    keep = list(columns) if columns is not None else list(range(5))

    class Some(SetupContext):
        def fit(self, samples, z):
            y = np.array([float(s["average"]) for s in samples])
            pairs = [(i, p) for i, p in enumerate(partner_index(samples)) if p is not None]
            cols = setup_context(samples, z)[[i for i, _ in pairs]][:, keep]
            target = np.array([(y[i] - y[p]) / 2 for i, p in pairs])
            coef = list(Ridge(alpha=1.0, fit_intercept=False).fit(cols, target).coef_)
            self.coef_ = [float(coef[keep.index(k)]) if k in keep else 0.0 for k in range(5)]
            return self

    class Variant(QualityPredictor):
        context_class = Some

        def raw(self, samples):
            raw = super().raw(samples)
            if not other_ending:
                return raw
            other, _ = setup_views(list(samples))
            rel = np.zeros_like(raw)
            for i, j in enumerate(other):
                if j is not None:
                    rel[i] = raw[i] - raw[j]
            return np.hstack([raw, rel])

    def fit_predict(fit, test):
        options = {"with_level": True, "with_context": not other_ending}
        return Variant(cache_dir=features.CACHE).fit(fit, **options).predict(test)

    return fit_predict


def variants(scratch: Path, wordnet_dir: Path = Path("/usr/share/wordnet")) -> dict[str, Callable]:
    from predictions.ml.stacking import QualityPredictor

    def frozen(cls=QualityPredictor, alpha: float | Callable = 1.0):
        def fit_predict(fit, test):
            a = alpha(fit) if callable(alpha) else alpha
            return cls(cache_dir=features.CACHE).fit(fit, alpha=a, **UNCHANGED).predict(test)

        return fit_predict

    return {
        "base": frozen(),
        "layers-add": frozen(predictor_with_raw(lambda s: layer_columns(s, scratch))),
        "layers-replace": frozen(
            predictor_with_raw(lambda s: layer_columns(s, scratch), replace=True)
        ),
        "alpha-inner": frozen(alpha=inner_alpha),
        "alpha-10": frozen(alpha=10.0),
        "dominance": frozen(predictor_with_raw(lambda s: dominance_columns(s, scratch))),
        "diag-bilinear": diag_fit_predict,
        "rank-hgb": frozen(tree_ranked_predictor("hgb")),
        "rank-ridge+hgb": frozen(tree_ranked_predictor("mix")),
        "rank-noise-weighted": frozen(noise_weighted_predictor()),
        "maps-by-ending": maps_by_ending,
        "setup-context": setup_context_predictor(),
        "setup-context-mean": setup_context_predictor(columns=(0, 1)),
        "other-ending": setup_context_predictor(other_ending=True),
        **{
            name: lazy_wordnet(scratch, wordnet_dir, parts, frozen)
            for name, parts in (
                ("wordnet", ("cos", "count")),
                ("wordnet-cos", ("cos",)),
                ("wordnet-count", ("count",)),
            )
        },
    }


def lazy_wordnet(scratch, wordnet_dir, parts, frozen: Callable) -> Callable:
    """A ``wordnet`` variant that reads WordNet only when it runs."""
    loaded: list[WordNet] = []

    def fit_predict(fit, test):
        if not loaded:
            loaded.append(WordNet(wordnet_dir))
        columns = lambda s: wordnet_columns(s, scratch, loaded[0], parts)  # noqa: E731
        return frozen(predictor_with_raw(columns))(fit, test)

    return fit_predict


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="+")
    ap.add_argument("--seeds", nargs="+", type=int, default=[2, 3, 4])
    ap.add_argument("--scratch", type=Path, default=REPO / "var" / "frozen-variants")
    ap.add_argument(
        "--wordnet", type=Path, default=Path("/usr/share/wordnet"), help="WordNet 3.0's dict"
    )
    ap.add_argument(
        "--results", type=Path, default=REPO / "bench" / "results" / "ml_frozen_variants.json"
    )
    ap.add_argument(
        "--smoke",
        action="store_true",
        help="CI size: base and alpha-10 on the samples of 8 homonyms, fold seed 2; "
        "feature cache and results in a scratch folder",
    )
    args = ap.parse_args()
    if args.smoke:
        from scratch import smoke_dir

        args.scratch = smoke_dir("ml_frozen_variants")
        features.CACHE, args.results = str(args.scratch / "cache"), args.scratch / "r.json"
        args.only, args.seeds = ["base", "alpha-10"], [2]
    os.chdir(REPO)
    import django

    django.setup()
    from predictions.management.commands.crossvalidate import labelled_samples
    from predictions.selection import cross_validate, paired_difference

    args.scratch.mkdir(parents=True, exist_ok=True)
    table = variants(args.scratch, args.wordnet)
    names = args.only or list(table)
    if "base" not in names:
        names = ["base", *names]
    samples = labelled_samples(["train", "dev"], REPO / "data" / "ambistory")
    if args.smoke:
        from scratch import smoke_subset

        samples = smoke_subset(samples, 8)
    folds: dict[str, list[dict]] = {}
    out: dict = {"seeds": args.seeds, "n_folds": 5, "variants": {}}
    for name in names:
        started = time.perf_counter()
        result = cross_validate(samples, table[name], folds=5, seeds=args.seeds, log=lambda _: None)
        folds[name] = [vars(f) for f in result.folds]
        entry: dict = {
            m: round(float(np.mean([f[m] for f in folds[name]])), 4)
            for m in ("accuracy", "spearman")
        }
        if name != "base":
            for m in ("accuracy", "spearman"):
                diff = paired_difference(folds[name], folds["base"], m)
                entry[f"{m}_minus_base"] = diff.as_dict() if diff else None
        entry["seconds"] = round(time.perf_counter() - started, 1)
        out["variants"][name] = entry
        print(name, json.dumps(entry), flush=True)
    out["command"] = "python bench/ml_frozen_variants.py " + " ".join(sys.argv[1:])
    stored = json.loads(args.results.read_text()) if args.results.is_file() else {}
    if stored.get("seeds") == args.seeds:  # the other variants stored on the same folds stay
        out["variants"] = {**stored.get("variants", {}), **out["variants"]}
        out["command"] = stored.get("command", "") + "; then " + out["command"]
    args.results.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
