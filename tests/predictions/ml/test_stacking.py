"""predictions.ml.stacking's setup context on hand-made setups (pure numpy; no MiniLM)."""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("sklearn")

from predictions.ml.features import partner_index, setup_views  # noqa: E402
from predictions.ml.stacking import SetupContext, setup_context  # noqa: E402

SENSES = ("sense a", "sense b")
ENDINGS = ("", "It rang.", "It flowed.")  # no ending, then two endings


def setups(n: int) -> list[dict]:
    """``n`` setups of 3 stories x 2 senses, grouped by sense (a story's senses apart)."""
    out = []
    for k in range(n):
        for sense in SENSES:
            for ending in ENDINGS:
                out.append(
                    {
                        "homonym": f"word{k}",
                        "precontext": f"Context {k}.",
                        "sentence": f"The word{k} was there.",
                        "ending": ending,
                        "judged_meaning": sense,
                        "average": 3.0,
                    }
                )
    return out


def test_setup_views_find_the_same_sense_on_the_other_ending_and_without_one():
    samples = setups(2)
    other, bare = setup_views(samples)
    for i, s in enumerate(samples):
        if not s["ending"]:
            assert other[i] is None and bare[i] is None
            continue
        o, b = samples[other[i]], samples[bare[i]]
        assert o["judged_meaning"] == b["judged_meaning"] == s["judged_meaning"]
        assert o["homonym"] == b["homonym"] == s["homonym"]
        assert o["ending"] and o["ending"] != s["ending"] and b["ending"] == ""
    lone = [samples[1]]  # an ending story alone: nothing to read against
    assert setup_views(lone) == ([None], [None])


def antisymmetric(samples, rng) -> np.ndarray:
    z = rng.normal(size=len(samples))
    for i, p in enumerate(partner_index(samples)):
        if p is not None and p > i:
            z[p] = -z[i]
    return z


def test_setup_context_columns_and_their_antisymmetry():
    rng = np.random.default_rng(0)
    samples = setups(3)
    z = antisymmetric(samples, rng)
    cols = setup_context(samples, z)
    other, bare = setup_views(samples)
    for i, s in enumerate(samples):
        rest = [
            j
            for j, t in enumerate(samples)
            if j != i
            and t["homonym"] == s["homonym"]
            and t["judged_meaning"] == s["judged_meaning"]
        ]
        assert cols[i, 0] == z[i] and cols[i, 1] == pytest.approx(z[rest].mean())
        if s["ending"]:
            assert list(cols[i, 2:]) == [z[other[i]], z[bare[i]], z[i]]
        else:
            assert list(cols[i, 2:]) == [0.0, 0.0, 0.0]
    for i, p in enumerate(partner_index(samples)):  # the other sense sees a mirrored setup
        assert np.allclose(cols[i], -cols[p])


def test_setup_context_learns_how_a_story_reads_against_its_setup():
    rng = np.random.default_rng(1)
    samples = setups(60)
    z = antisymmetric(samples, rng)
    true = np.array([0.5, 0.0, -0.3, 0.8, 0.2])
    half_diff = setup_context(samples, z) @ true + rng.normal(scale=0.01, size=len(samples))
    for i, p in enumerate(partner_index(samples)):  # averages whose half difference it is
        if p > i:
            samples[i]["average"], samples[p]["average"] = 3 + half_diff[i], 3 - half_diff[i]
    context = SetupContext().fit(samples, z)
    assert np.allclose(context.coef_, true, atol=0.03)
    assert np.allclose(context.apply(samples, z), setup_context(samples, z) @ true, atol=0.1)
    assert np.allclose(SetupContext().apply(samples, z), z)  # the default: the score unchanged
