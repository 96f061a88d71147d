"""predictions.selection: grouped folds, determinism, the interval maths and nesting, on
small synthetic data (no database, no model)."""

from __future__ import annotations

import math
import random

import pytest

from predictions.selection import (
    corrected_interval,
    cross_validate,
    group_of,
    grouped_folds,
    paired_difference,
    select_fit_predict,
    strip_labels,
)


def synthetic(n_homonyms: int = 12, per: int = 6, seed: int = 1) -> list[dict]:
    """Stories of ``n_homonyms`` homonyms, uneven sizes, labels tied to a 'signal' field."""
    rng = random.Random(seed)
    out = []
    for h in range(n_homonyms):
        for j in range(per + h % 3):
            signal = rng.uniform(1, 5)
            choices = [min(5, max(1, round(signal + rng.uniform(-1, 1)))) for _ in range(5)]
            out.append(
                {
                    "id": f"s{h}-{j}",
                    "homonym": f"word{h}",
                    "signal": signal,
                    "choices": choices,
                    "average": sum(choices) / 5,
                }
            )
    return out


def signal_model(fit, test):
    return [s["signal"] for s in test]


def test_every_homonym_lies_in_exactly_one_fold():
    samples = synthetic()
    folds = grouped_folds([group_of(s) for s in samples], 5, seed=3)
    by_homonym: dict[str, set[int]] = {}
    for s, f in zip(samples, folds):
        by_homonym.setdefault(s["homonym"], set()).add(f)
    assert all(len(v) == 1 for v in by_homonym.values())
    assert set(folds) == set(range(5))


def test_fold_sizes_stay_balanced():
    samples = synthetic(n_homonyms=40)
    folds = grouped_folds([group_of(s) for s in samples], 5, seed=0)
    sizes = [folds.count(k) for k in range(5)]
    assert max(sizes) - min(sizes) <= 8  # at most one homonym's samples apart


def test_grouping_ignores_case_and_spaces():
    assert group_of({"homonym": " Bank "}) == group_of({"homonym": "bank"})


def test_folds_are_deterministic_per_seed_and_differ_between_seeds():
    groups = [group_of(s) for s in synthetic(n_homonyms=30)]
    assert grouped_folds(groups, 5, seed=7) == grouped_folds(groups, 5, seed=7)
    assert grouped_folds(groups, 5, seed=7) != grouped_folds(groups, 5, seed=8)


def test_cross_validation_is_deterministic_per_seed():
    samples = synthetic()
    a = cross_validate(samples, signal_model, folds=4, seeds=(0, 1), log=lambda _: None)
    b = cross_validate(samples, signal_model, folds=4, seeds=(0, 1), log=lambda _: None)
    strip = [(f.seed, f.fold, f.n_test, f.accuracy, f.spearman) for f in a.folds]
    assert strip == [(f.seed, f.fold, f.n_test, f.accuracy, f.spearman) for f in b.folds]
    assert len(a.folds) == 8


def test_too_few_homonyms_for_the_folds_is_refused():
    with pytest.raises(ValueError, match="groups"):
        grouped_folds(["a", "a", "b"], 3, seed=0)


def test_duplicate_ids_are_refused():
    samples = synthetic()
    samples[1]["id"] = samples[0]["id"]
    with pytest.raises(ValueError, match="unique"):
        cross_validate(samples, signal_model, folds=3, log=lambda _: None)


def test_the_model_never_sees_labels_of_scored_samples_nor_their_homonyms():
    samples = synthetic()
    seen = []

    def spy(fit, test):
        seen.append((fit, test))
        assert all("choices" not in s and "average" not in s for s in test)
        assert {s["homonym"] for s in fit}.isdisjoint({s["homonym"] for s in test})
        return [3.0] * len(test)

    cross_validate(samples, spy, folds=3, seeds=(0,), log=lambda _: None)
    scored = [s["id"] for _, test in seen for s in test]
    assert sorted(scored) == sorted(s["id"] for s in samples)  # each sample scored once


def test_interval_matches_the_corrected_resampled_t_formula():
    values = [0.70, 0.74, 0.72, 0.78, 0.76]
    iv = corrected_interval(values, test_fit_ratio=0.25)
    mean = 0.74
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / 4)
    half = 2.7764451051977987 * sd * math.sqrt(1 / 5 + 0.25)  # t(0.975, 4)
    assert iv.mean == pytest.approx(mean)
    assert iv.sd == pytest.approx(sd)
    assert (iv.low, iv.high) == pytest.approx((mean - half, mean + half))


def test_interval_with_no_correction_is_the_plain_t_interval_and_narrower():
    values = [0.1, 0.3, 0.2, 0.4]
    plain = corrected_interval(values, test_fit_ratio=0.0)
    corrected = corrected_interval(values, test_fit_ratio=1 / 3)
    half = 3.182446305284263 * plain.sd / 2  # t(0.975, 3) * sd / sqrt(4)
    assert plain.high - plain.mean == pytest.approx(half)
    assert corrected.high - corrected.low > plain.high - plain.low


def test_a_single_score_has_a_zero_width_interval():
    iv = corrected_interval([0.5], 0.25)
    assert (iv.low, iv.high, iv.n) == (0.5, 0.5, 1)


def test_summary_reports_mean_interval_and_pooled_figures():
    result = cross_validate(synthetic(), signal_model, folds=3, seeds=(0, 1), log=lambda _: None)
    summary = result.summary()
    acc = summary["accuracy"]
    assert acc["n"] == 6 and acc["low"] <= acc["mean"] <= acc["high"]
    assert summary["spearman"]["mean"] > 0.5  # the signal predicts the labels
    assert 0 < summary["pooled_accuracy"] <= 1


def test_constant_predictions_leave_spearman_undefined_not_zero():
    result = cross_validate(synthetic(), lambda f, t: [3.0] * len(t), folds=3, log=lambda _: None)
    assert result.summary()["spearman"] is None


def test_a_different_constant_per_fold_has_no_pooled_spearman():
    def fold_mean(fit, test):  # constant within a fold, different between folds
        return [sum(s["average"] for s in fit) / len(fit)] * len(test)

    result = cross_validate(synthetic(), fold_mean, folds=3, log=lambda _: None)
    assert result.summary()["pooled_spearman"] is None


def test_nested_selection_tunes_inside_the_training_folds_only():
    samples = synthetic(n_homonyms=15)
    calls: list[tuple[set, set]] = []

    def candidate(informative):
        def fit_predict(fit, test):
            calls.append(({s["id"] for s in fit}, {s["id"] for s in test}))
            return [s["signal"] if informative else 3.0 for s in test]

        return fit_predict

    candidates = {"signal": candidate(True), "flat": candidate(False)}
    picks: list[str] = []
    inner = select_fit_predict(candidates, inner_folds=3, picks=picks, log=lambda _: None)

    def outer(fit, test):
        calls.clear()
        preds = inner(fit, test)
        fit_ids, held_out = {s["id"] for s in fit}, {s["id"] for s in test}
        *tuning, final = calls
        assert len(tuning) == 2 * 3  # two candidates x three inner folds
        for inner_fit, inner_test in tuning:  # the held-out fold is never touched
            assert inner_fit | inner_test <= fit_ids
        assert final == (fit_ids, held_out)  # refitted on all training folds
        return preds

    cross_validate(samples, outer, folds=3, log=lambda _: None)
    assert picks == ["signal"] * 3


def test_strip_labels_keeps_inputs():
    s = {"id": "1", "homonym": "x", "choices": [1], "average": 1.0, "stdev": 0.0}
    assert strip_labels(s) == {"id": "1", "homonym": "x"}


def test_paired_difference_compares_the_same_folds():
    samples = synthetic()
    good = cross_validate(samples, signal_model, folds=3, seeds=(0, 1), log=lambda _: None)
    flat = cross_validate(
        samples, lambda f, t: [3.0 + 0.01 * i for i in range(len(t))], folds=3, seeds=(0, 1),
        log=lambda _: None,
    )  # fmt: skip
    a = [vars(f) for f in good.folds]
    b = [vars(f) for f in flat.folds]
    diff = paired_difference(a, b, "spearman")
    by_fold = [x.spearman - y.spearman for x, y in zip(good.folds, flat.folds)]
    assert diff.n == 6 and diff.mean == pytest.approx(sum(by_fold) / 6)
    assert diff.low > 0  # the signal beats an arbitrary order on every fold
    assert paired_difference(a, b[:0], "accuracy") is None
