"""Baselines: seeded random per sample id, constants fixed or tuned on a fit split."""

from __future__ import annotations

import pytest

from predictions.backends import ParamError, UnknownBackend, get_backend

SAMPLES = [{"id": str(i)} for i in range(40)]


def scores(backend, samples) -> list[float]:
    return [out.score for out in backend.predict_batch(samples)]


def test_it_gives_a_sample_the_same_random_score_in_any_batch():
    backend = get_backend("random", seed=5)
    whole = scores(backend, SAMPLES)
    halves = scores(backend, SAMPLES[20:]) + scores(backend, SAMPLES[:20])
    assert whole == halves[20:] + halves[:20]
    assert all(1 <= s <= 5 for s in whole) and len(set(whole)) == 40
    assert whole != scores(get_backend("random", seed=6), SAMPLES)


def test_it_draws_integers_in_the_range_when_asked():
    values = scores(get_backend("random", seed=1, integer=True, low=2, high=4), SAMPLES)
    assert set(values) == {2.0, 3.0, 4.0}


def test_it_predicts_the_majority_label_by_default():
    assert set(scores(get_backend("constant"), SAMPLES)) == {4.0}


def test_it_tunes_the_constant_on_the_fit_samples_only():
    backend = get_backend("constant", tune=True)
    backend.prepare([{"choices": [1, 1, 2]}] * 3 + [{"choices": [5, 5, 4]}])
    assert backend.value < 3 and "tuned" in backend.model_version()
    with pytest.raises(ValueError, match="fit split"):
        get_backend("constant", tune=True).prepare(None)


def test_it_rejects_unknown_backends_and_parameters():
    with pytest.raises(UnknownBackend, match="random"):
        get_backend("oracle")
    with pytest.raises(ParamError, match=r"^params\.colour: random has no such parameter"):
        get_backend("random", colour="red")
    with pytest.raises(ValueError):
        get_backend("random", low=5, high=1)
