"""bench/ml_frozen_variants.py and its feature blocks (bench/ml_frozen_features.py) on a
tiny real subset (the real MiniLM)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))

import ml_frozen_variants as variants  # noqa: E402

from predictions.ml.features import partner_index  # noqa: E402
from predictions.ml.texts import setup_key  # noqa: E402

pytestmark = [pytest.mark.bench, pytest.mark.ml]


@pytest.fixture(scope="module")
def samples() -> list[dict]:
    """The first two setups of train (12 samples: 6 stories judged on two senses)."""
    data = list(json.loads((REPO / "data/ambistory/train.json").read_text()).values())
    keys = []
    for s in data:
        if setup_key(s) not in keys:
            keys.append(setup_key(s))
    return [s for s in data if setup_key(s) in keys[:2]]


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setattr(variants.features, "CACHE", str(tmp_path / "cache"))


def test_diag_features_are_opposite_for_the_two_senses_of_a_story(samples):
    X = variants.diag_features(samples)
    assert X.shape == (len(samples), 3 * 384)
    partners = partner_index(samples)
    assert all(p is not None for p in partners)
    for i, p in enumerate(partners):
        assert np.allclose(X[i], -X[p], atol=1e-6)
    assert np.abs(X).sum() > 0
    alone = variants.diag_features(samples[:1])  # no other sense: nothing to contrast
    assert np.allclose(alone, 0)


def test_layer_columns_are_cosines_cached_under_their_own_keys(samples, tmp_path):
    cols = variants.layer_columns(samples, tmp_path)
    assert cols.shape == (len(samples), len(variants.TOKEN_PAIRS))
    assert np.all(np.abs(cols) <= 1 + 1e-5)
    story_example = cols[:, 0]  # the homonym in the story against it in the example
    assert 0.2 < float(story_example.mean()) < 1.0
    with np.load(tmp_path / "layer_tokens.npz") as stored:
        assert len(stored.files) > 0
    assert np.allclose(variants.layer_columns(samples, tmp_path), cols)  # from the cache


def test_every_variant_is_registered_with_base(tmp_path):
    table = variants.variants(tmp_path)
    assert {"base", "layers-add", "layers-replace", "alpha-inner", "alpha-10"} <= set(table)
    assert {"dominance", "diag-bilinear", "rank-hgb", "rank-ridge+hgb"} <= set(table)
    assert {"wordnet", "wordnet-cos", "wordnet-count"} <= set(table)
    assert {"rank-noise-weighted", "maps-by-ending"} <= set(table)
    assert all(callable(fit_predict) for fit_predict in table.values())


def _wordnet_dict(root: Path) -> Path:
    """A two-synset WordNet in wndb format: bank (a slope, a kind of incline; and a
    financial institution with a tag count and an example)."""
    root.mkdir()
    slope = "sloping land (especially the slope beside a body of water)"
    money = 'a financial institution that accepts deposits; "he cashed a check at the bank"'
    lines = [  # (lemmas, gloss, pointers); ________ stands for incline's offset (0)
        ("incline", "an elevated geological formation", "000"),
        ("bank", slope, "001 @ ________ n 0000"),
        ("depository_financial_institution bank", money, "000"),
    ]
    offsets, text = [], ""
    for words, gloss, ptrs in lines:
        offsets.append(len(text.encode()))
        names = words.split()
        pairs = " ".join(f"{w} 0" for w in names)
        text += f"{offsets[-1]:08d} 17 n {len(names):02x} {pairs} {ptrs} | {gloss}\n"
    text = text.replace("________", f"{offsets[0]:08d}")
    (root / "data.noun").write_text(text)
    (root / "index.sense").write_text(
        f"bank%1:17:01:: {offsets[1]:08d} 2 1\nbank%1:14:00:: {offsets[2]:08d} 1 20\n"
        f"incline%1:17:00:: {offsets[0]:08d} 1 0\n"
    )
    for pos in ("noun", "verb", "adj", "adv"):
        (root / f"{pos}.exc").write_text("")
    return root


def test_wordnet_finds_the_judged_sense_with_its_counts_and_neighbours(tmp_path):
    wn = variants.WordNet(_wordnet_dict(tmp_path / "wn"))
    assert wn.lemmas("Banks") == ["bank"]  # a plain lemmatisation
    money = wn.sense("banks", "a financial institution that accepts deposits")
    assert money is not None and (money["count"], money["rank"]) == (20, 1)
    assert money["share"] == pytest.approx(21 / 23)  # (20 + 1) / (20 + 1 + 2 senses)
    assert money["text"].startswith("depository financial institution, bank; ")
    assert money["text"].endswith("he cashed a check at the bank")
    slope = wn.sense("bank", "Sloping land.")  # its definition holds the gloss
    assert slope is not None and slope["rank"] == 2
    assert slope["text"] == "bank; a kind of incline: an elevated geological formation"
    assert wn.sense("bank", "a long ridge of clouds") is None
    assert wn.sense("ledger", "a book") is None


def test_tree_ranked_predictor_swaps_only_its_own_ranker_and_is_antisymmetric(samples):
    from predictions.ml import stacking

    cls = variants.tree_ranked_predictor("hgb")
    assert issubclass(cls.rank_class, stacking.RankModel)
    assert stacking.QualityPredictor.rank_class is stacking.RankModel  # nothing global changed
    predictor = cls(cache_dir=variants.features.CACHE).fit(samples, with_level=True)
    assert isinstance(predictor.rank, cls.rank_class) and predictor.rank.coef_ is None
    raw = predictor.raw(samples)
    scores = predictor.rank.score(samples, raw)
    mixed = variants.tree_ranked_predictor("mix")(cache_dir=variants.features.CACHE)
    mixed.fit(samples, with_level=True)
    ridge = stacking.RankModel().fit(samples, raw).score(samples, raw)
    assert mixed.rank.coef_ is not None  # the mix keeps the ridge: half of it is the ridge's
    assert np.allclose(2 * mixed.rank.score(samples, raw) - ridge, scores)
    partners = partner_index(samples)
    pairs = [(i, p) for i, p in enumerate(partners) if p is not None]
    assert pairs and all(abs(scores[i] + scores[p]) < 1e-9 for i, p in pairs)


def test_noise_weighted_ranker_trusts_the_pairs_with_less_rating_noise(samples):
    from annotations.official import label_sd
    from predictions.ml import stacking

    cls = variants.noise_weighted_predictor()
    partners = partner_index(samples)
    pairs = [(samples[i], samples[p]) for i, p in enumerate(partners) if p is not None]
    weights = cls.rank_class().pair_weights(pairs)
    noise = [sum(label_sd(s["choices"]) ** 2 / len(s["choices"]) for s in pair) for pair in pairs]
    assert weights.mean() == pytest.approx(1.0) and np.ptp(weights) > 0
    assert all(  # the noisier of any two pairs never weighs more
        weights[i] <= weights[j] for i in range(len(pairs)) for j in range(len(pairs))
        if noise[i] > noise[j]
    )  # fmt: skip
    assert stacking.RankModel().pair_weights(pairs) is None  # as shipped: all equal
    raw = stacking.QualityPredictor(cache_dir=variants.features.CACHE).raw(samples)
    weighted = cls.rank_class().fit(samples, raw)
    plain = stacking.RankModel().fit(samples, raw)
    assert not np.allclose(weighted.coef_, plain.coef_)


def test_maps_by_ending_keeps_the_order_within_each_kind_of_story():
    from scipy.stats import spearmanr

    from predictions.ml.stacking import QualityPredictor
    from predictions.ml.texts import field
    from predictions.selection import strip_labels

    data = list(json.loads((REPO / "data/ambistory/train.json").read_text()).values())
    homonyms = list(dict.fromkeys(s["homonym"] for s in data))
    fit = [s for s in data if s["homonym"] in homonyms[:6]]
    test = [strip_labels(s) for s in data if s["homonym"] in homonyms[6:8]]
    preds = np.array(variants.maps_by_ending(fit, test))
    assert len(preds) == len(test) and ((preds >= 1) & (preds <= 5)).all()
    predictor = QualityPredictor(cache_dir=variants.features.CACHE).fit(fit, **variants.UNCHANGED)
    z = predictor.calibrator.combine(predictor.components(test))
    ends = np.array([bool(field(s, "ending")) for s in test])
    assert ends.any() and (~ends).any()
    for kind in (ends, ~ends):  # one increasing map per kind: the order of z within it stays
        assert spearmanr(z[kind], preds[kind])[0] == pytest.approx(1.0)
