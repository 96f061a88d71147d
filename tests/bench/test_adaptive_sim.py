"""bench/adaptive_sim.py: both arms of a replay consume the same pre-drawn ratings, and the
coverage it reports is the share of intervals that hold the full-data mean."""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))

import adaptive_sim as sim  # noqa: E402

DATA = [(f"setup{i // 2}", obs) for i, obs in enumerate(
    [(1, 2, 5, 5, 3), (3, 3, 3, 3, 4), (1, 1, 5, 5, 5), (2, 2, 2, 3, 2), (4, 5, 4, 1, 5),
     (1, 2, 3, 4, 5), (5, 5, 5, 5, 5), (2, 4, 2, 4, 3)]
)]  # fmt: skip


def _args(**kw) -> argparse.Namespace:
    base = dict(
        repeats=3, budgets="4,5", rules="widest,variance", minimum=3, maximum=9, target=0.0,
        batch=2, sd_floor=0.5,
    )  # fmt: skip
    return argparse.Namespace(**(base | kw))


@pytest.mark.parametrize("rule", ["widest", "variance"])
def test_fixed_and_adaptive_arms_take_prefixes_of_the_same_draws(rule):
    draws = sim.draw_sequences(DATA, 9, random.Random(7))
    fixed = sim.fixed(draws, 5)
    adaptive, rounds = sim.adaptive(DATA, draws, 5 * len(DATA), _args(), rule)
    assert rounds > 0
    assert sorted(map(len, adaptive)) != [5] * len(DATA)  # it did reallocate
    for seq, f, a in zip(draws, fixed, adaptive):
        assert f == seq[:5] and a == seq[: len(a)]
        # where both arms hold k ratings of a sample, they are the very same ratings
        k = min(len(f), len(a))
        assert f[:k] == a[:k]


def test_every_draw_comes_from_the_sample_and_one_seed_gives_one_sequence():
    one = sim.draw_sequences(DATA, 9, random.Random(3))
    assert one == sim.draw_sequences(DATA, 9, random.Random(3))
    assert all(set(seq) <= set(obs) for seq, (_, obs) in zip(one, DATA))


def test_coverage_is_the_share_of_intervals_holding_the_full_mean():
    # [3, 3, 3]: width 0, holds 3; [4, 4, 4] misses 4.2; [1, 5] is wide enough for anything
    got = sim.measure([[3, 3, 3], [1, 5], [4, 4, 4]], [3.0, 4.0, 4.2])
    assert got["coverage"] == pytest.approx(2 / 3)
    assert got["ratings"] == 8


def test_the_replay_reports_each_arm_against_fixed_on_the_same_seed():
    rows = sim.replay(DATA, _args())
    assert [(r["budget_per_sample"], r["allocation"]) for r in rows] == [
        (b, arm) for b in (4, 5) for arm in ("fixed", "widest", "variance")
    ]
    for row in rows:
        assert row["ratings"] == row["budget_per_sample"] * len(DATA)
        assert 0.0 <= row["coverage"] <= 1.0
        if row["allocation"] == "fixed":
            assert row["delta"] == 0.0 and row["delta_sd"] == 0.0
