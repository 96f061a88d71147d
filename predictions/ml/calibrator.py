"""The calibration stage of the quality predictor (:mod:`.stacking`): the weights of the
standardised components and the strictly increasing map to ratings that maximises the
official accuracy (``Calibrator``), and its extension by a fine-tuned model's components."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field as dc_field

import numpy as np

from .ranking import antisymmetrise, label_bounds
from .texts import SampleFields


@dataclass
class Calibrator:
    """Weighted sum of standardised components, then ``mid + amp*tanh(z/scale) + slope*z``."""

    weights: list[float] = dc_field(default_factory=lambda: [1.0])
    stds: list[float] = dc_field(default_factory=lambda: [1.0])
    mid: float = 3.1
    amp: float = 1.0
    scale: float = 1.0
    slope: float = 0.05

    def combine(self, comps: np.ndarray) -> np.ndarray:
        """comps: shape (n, k) -> combined score z, shape (n,)."""
        comps = np.asarray(comps, dtype=np.float64).reshape(len(comps), -1)
        return (comps / np.array(self.stds)) @ np.array(self.weights)

    def apply(self, comps: np.ndarray) -> np.ndarray:
        z = self.combine(comps)
        return self.mid + self.amp * np.tanh(z / self.scale) + self.slope * z

    def fit(
        self, comps: np.ndarray, samples: Sequence[SampleFields], weight_grid: Sequence[float] = ()
    ) -> Calibrator:
        """Choose component weights (max Spearman) then the map (max accuracy) on ``samples``."""
        from scipy.stats import spearmanr

        comps = np.asarray(comps, dtype=np.float64).reshape(len(comps), -1)
        self.stds = [float(s) + 1e-9 for s in comps.std(0)]
        y = np.array([float(s["average"]) for s in samples])
        k = comps.shape[1]
        self.weights = [1.0] + [0.0] * (k - 1)
        grid = list(weight_grid) or list(np.linspace(0.0, 1.0, 11))
        for _ in range(2):  # coordinate ascent on Spearman, first weight fixed at 1
            for j in range(1, k):

                def rho(w: float, j: int = j) -> float:
                    trial = list(self.weights)
                    trial[j] = w
                    combined = self.combine_with(comps, trial)
                    if np.ptp(combined) == 0:  # no ranking at all: Spearman is undefined
                        return float("nan")  # (nanargmax skips it, as spearmanr's NaN)
                    return spearmanr(combined, y)[0]

                self.weights[j] = float(grid[int(np.nanargmax([rho(w) for w in grid]))])
        self.fit_map(self.combine(comps), samples)
        return self

    def combine_with(self, comps: np.ndarray, weights: Sequence[float]) -> np.ndarray:
        return (comps / np.array(self.stds)) @ np.array(weights)

    def fit_map(self, z: np.ndarray, samples: Sequence[SampleFields]) -> None:
        """Set ``mid``, ``amp``, ``scale`` and ``slope`` (a grid search) so that the mapped
        combined scores ``z`` of labelled ``samples`` are most often inside their accepted
        band (the official accuracy); the weights are left as they are."""
        lo, hi = label_bounds(samples)
        sd = float(np.std(z)) + 1e-9
        best = (-1, 0.0, 0.0, 0.0, 0.0)
        for slope in np.array([0.02, 0.05, 0.1]) / sd:
            for scale in sd * np.array([0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5]):
                t = np.tanh(z / scale)
                for amp in np.arange(0.6, 1.45, 0.05):
                    for mid in np.arange(2.8, 3.45, 0.025):
                        p = mid + amp * t + slope * z
                        acc = int(((p > lo) & (p < hi)).sum())
                        if acc > best[0]:
                            best = (acc, float(mid), float(amp), float(scale), float(slope))
        _, self.mid, self.amp, self.scale, self.slope = best

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def finetuned_components(
    ratings: np.ndarray, samples: Sequence[SampleFields], center: float = 3.14
) -> np.ndarray:
    """Fine-tuned model ratings -> (antisymmetric pair difference, centred pair mean), (n, 2)."""
    z = antisymmetrise(ratings, samples, center=center)
    return np.stack([z, ratings - z - center], 1)


def finetuned_calibrator(
    base: Calibrator,
    oof: np.ndarray,
    samples: Sequence[SampleFields],
    ref_base: np.ndarray,
    ref_finetuned: np.ndarray | None,
    finetuned_weight: float,
) -> Calibrator:
    """The final calibrator over [base components..., fine-tuned diff, fine-tuned level].

    ``base``: weights fitted on the out-of-fold base components ``oof`` of labelled
    ``samples``; the rating map is fitted there on the standardised base score. ``ref_base``
    / ``ref_finetuned`` (unlabelled reference scores, e.g. dev) fix the standard deviations:
    score = (base/sd_base + finetuned_weight * ce/sd_ce) / sd_total, then the map.
    """
    b_tr = base.combine(oof)
    unit = Calibrator(weights=[1.0], stds=[1.0])
    unit.fit_map(b_tr / (b_tr.std() + 1e-9), samples)
    b = base.combine(ref_base)
    sd_b = float(b.std()) + 1e-9
    weights = [w / sd_b for w in base.weights]
    stds = list(base.stds)
    if ref_finetuned is not None:
        sd_c = float(np.std(ref_finetuned)) + 1e-9
        total = float(np.std(b / sd_b + finetuned_weight * ref_finetuned / sd_c)) + 1e-9
        weights = [w / total for w in weights] + [finetuned_weight / total, 0.0]
        stds += [sd_c, 1.0]
    return Calibrator(
        weights=weights, stds=stds, mid=unit.mid, amp=unit.amp, scale=unit.scale, slope=unit.slope
    )
