"""The fine-tuned MiniLM bi-encoder on tiny real subsets (the real MiniLM, offline)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from predictions.ml import biencoder, crossencoder, features, finetune, texts

pytestmark = pytest.mark.ml

REPO = Path(__file__).resolve().parents[3]
LABELS = ("choices", "average", "stdev", "nonsensical")


@pytest.fixture(scope="module")
def samples() -> list[dict]:
    """The first three setups of the repository's train split (18 samples, 9 stories)."""
    data = list(json.loads((REPO / "data/ambistory/train.json").read_text()).values())
    setups: dict[tuple, list[dict]] = {}
    for s in data:
        setups.setdefault(texts.setup_key(s), []).append(s)
    return [s for group in list(setups.values())[:3] for s in group]


def _redacted(samples):
    return [{**s, **{k: "(???)" for k in LABELS}} for s in samples]


def _pair_loss(model, samples) -> float:
    """Mean BCE of the model's pair logits against the pair targets (as in training)."""
    sims = model.similarities(samples)
    losses = []
    for a, b in ((u[0], u[1]) for u in finetune.story_units(samples) if len(u) == 2):
        logit = biencoder.SCALE * (sims[a] - sims[b])
        target = (samples[a]["average"] - samples[b]["average"] + 4) / 8
        losses.append(math.log1p(math.exp(-abs(logit))) + max(logit, 0) - logit * target)
    return float(np.mean(losses))


def test_it_fine_tunes_saves_logs_and_reloads(tmp_path, samples):
    lines: list[str] = []
    out = tmp_path / "bi"
    base_loss = _pair_loss(biencoder.BiEncoderModel.base(max_seq_length=96), samples)
    model = biencoder.train(
        samples, out, epochs=2, lr=2e-4, batch_size=3, max_seq_length=96, log=lines.append
    )
    log = json.loads((out / crossencoder.LOG_FILE).read_text())
    assert log["architecture"] == "biencoder" and log["n_pairs"] == 9
    assert (log["contrasts"], log["n_story_pairs"]) == ("sense", 0)  # the default
    assert [e["epoch"] for e in log["epochs"]] == [1, 2]
    assert all(e["seconds"] > 0 and math.isfinite(e["loss"]) for e in log["epochs"])
    assert len(lines) == 2 and lines[0].startswith("bi-encoder epoch 1")
    # it learned the training pairs: lower pair loss than the untrained MiniLM
    assert _pair_loss(model, samples) < base_loss - 0.01
    reloaded = biencoder.load_trained(out)
    assert isinstance(reloaded, biencoder.BiEncoderModel)
    assert np.allclose(reloaded.similarities(samples), model.similarities(samples), atol=1e-5)
    preds = reloaded.predict(_redacted(samples))  # labels are never read
    assert all(1.0 <= p <= 5.0 for p in preds)
    assert (out / ".gitignore").read_text().strip() == "*"


def test_the_story_vector_is_the_homonym_not_the_whole_story(samples):
    model = biencoder.BiEncoderModel.base(max_seq_length=96)
    s = samples[0]
    story = texts.story_text(s, mark=False)
    span = features.homonym_span(story, s["homonym"], len(s["precontext"].strip()))
    assert span is not None
    with_span, without = model.vectors([(story, span), (story, None)]).detach().numpy()
    assert abs(float(with_span @ with_span) - 1.0) < 1e-5
    assert float(with_span @ without) < 0.99  # a different pooling, not the mean of all tokens


def test_it_refuses_samples_without_any_two_sense_story(tmp_path, samples):
    one_sense = [s for s in samples if s["judged_meaning"] == samples[0]["judged_meaning"]]
    with pytest.raises(ValueError, match="two senses"):
        biencoder.train(one_sense, tmp_path / "x", epochs=1)
    assert not (tmp_path / "x").exists()


def test_load_trained_tells_a_cross_encoder_apart(tmp_path, samples):
    crossencoder.train(samples[:4], tmp_path / "ce", epochs=1, max_seq_length=64, log=print)
    assert isinstance(biencoder.load_trained(tmp_path / "ce"), crossencoder.CrossEncoderModel)


def _story_pair_loss(model, samples) -> float:
    """Mean BCE over one sense judged on two stories of its setup (the story contrasts)."""
    sims = model.similarities(samples)
    losses = []
    for a, b in biencoder._story_pairs(samples):
        logit = biencoder.SCALE * (sims[a] - sims[b])
        target = (samples[a]["average"] - samples[b]["average"] + 4) / 8
        losses.append(math.log1p(math.exp(-abs(logit))) + max(logit, 0) - logit * target)
    return float(np.mean(losses))


def test_story_pairs_hold_one_sense_on_two_stories_of_its_setup(samples):
    pairs = biencoder._story_pairs(samples)
    assert len(pairs) == 3 * 2 * 3  # three setups, two senses, three stories each
    for a, b in pairs:
        sa, sb = samples[a], samples[b]
        assert texts.setup_key(sa) == texts.setup_key(sb)
        assert sa["judged_meaning"] == sb["judged_meaning"]
        assert texts.story_key(sa) != texts.story_key(sb)
    assert len(set(pairs)) == len(pairs)


def test_sense_and_story_contrasts_learn_both_axes(tmp_path, samples):
    out = tmp_path / "bi"
    base = biencoder.BiEncoderModel.base(max_seq_length=96)
    base_story, base_sense = _story_pair_loss(base, samples), _pair_loss(base, samples)
    model = biencoder.train(
        samples,
        out,
        epochs=4,
        lr=1e-4,
        batch_size=3,
        max_seq_length=96,
        contrasts="sense+story",
        log=lambda line: None,
    )
    log = json.loads((out / crossencoder.LOG_FILE).read_text())
    assert (log["contrasts"], log["n_pairs"], log["n_story_pairs"]) == ("sense+story", 27, 18)
    # both axes learned; the story axis more slowly (stories of one sense differ little)
    assert _story_pair_loss(model, samples) < base_story - 0.005
    assert _pair_loss(model, samples) < base_sense - 0.05


def test_unknown_contrasts_are_refused_before_anything_is_written(tmp_path, samples):
    with pytest.raises(ValueError, match="'senses'.*sense, sense\\+story"):
        biencoder.train(samples, tmp_path / "x", epochs=1, contrasts="senses")
    assert not (tmp_path / "x").exists()
