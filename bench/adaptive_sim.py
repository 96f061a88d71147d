"""Replay simulation: adaptive allocation against a fixed number of ratings per sample.

Each AmbiStory sample (train + dev, 2,868 samples with 5 ratings each) is a population: a
simulated rating is a draw, with replacement, from that sample's observed five ratings.

Shared draws: per replay (seed) every sample gets one pre-drawn sequence of ratings, and every
arm consumes that same sequence in order (:func:`draw_sequences`). A fixed arm and an adaptive
arm therefore differ only in how many of the sequence's ratings they take, never in which: the
comparison is paired, so the differences are the allocations', not the luck of the draws.

For a budget of B ratings per sample on average:

* fixed: every sample gets the first B ratings of its sequence;
* adaptive: every sample starts with the first ``--minimum``; growth rounds then call the
  site's own rule (``studies.adaptive.grow``, ``--rules``: ``widest`` interval first, or
  ``variance``-optimal with SDs shrunk towards the pooled SD; at most ``--maximum`` per sample,
  setups as groups, ``--batch`` setups per participant) until the budget (B x samples) is spent
  or no sample is wider than the target.

Reported per budget and arm, as mean and SD over ``--repeats`` seeded replays: the mean 95%
interval width of the sample means; Spearman's rho between the simulated means and the full
5-rating means (and its paired difference from the fixed arm of the same seed); coverage, the
fraction of samples whose 95% t interval contains the full 5-rating mean; RMSE to those means.

    python bench/adaptive_sim.py [--repeats 20] [--budgets 4,5,6] [--rules widest,variance]
    python bench/adaptive_sim.py --smoke   # CI: the same code path, 300 samples, seconds
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from studies.adaptive import SampleState, grow, interval_width  # noqa: E402

FILES = ("data/ambistory/train.json", "data/ambistory/dev.json")


def load(root: Path = ROOT) -> list[tuple[str, tuple[int, ...]]]:
    """(setup key, observed ratings) per sample, in file order."""
    rows = []
    for name in FILES:
        for raw in json.loads((root / name).read_text()).values():
            setup = f"{raw['homonym']}\x00{raw['precontext']}\x00{raw['sentence']}"
            rows.append((setup, tuple(raw["choices"])))
    return rows


def ranks(values: list[float]) -> list[float]:
    order = sorted(range(len(values)), key=values.__getitem__)
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(a: list[float], b: list[float]) -> float:
    ra, rb = ranks(a), ranks(b)
    ma, mb = statistics.fmean(ra), statistics.fmean(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = sum((x - ma) ** 2 for x in ra)
    vb = sum((y - mb) ** 2 for y in rb)
    return cov / (va * vb) ** 0.5


Data = list[tuple[str, tuple[int, ...]]]


def draw_sequences(data: Data, length: int, rng: random.Random) -> list[list[int]]:
    """Per sample, ``length`` ratings drawn with replacement from its observed ones: the one
    sequence every arm of a replay consumes in order."""
    return [[rng.choice(obs) for _ in range(length)] for _, obs in data]


def fixed(draws: list[list[int]], per_sample: int) -> list[list[int]]:
    return [seq[:per_sample] for seq in draws]


def adaptive(
    data: Data, draws: list[list[int]], budget: int, args: argparse.Namespace, rule: str
) -> tuple[list[list[int]], int]:
    """The ratings each sample ends with under ``grow`` (a prefix of its sequence)."""
    taken = [args.minimum] * len(data)
    spent, rounds = args.minimum * len(data), 0
    while spent < budget:
        states = [
            SampleState(key=i, group=data[i][0], scores=tuple(draws[i][:n]), wanted=n, pending=0)
            for i, n in enumerate(taken)
        ]
        picks = grow(
            states,
            maximum=args.maximum,
            target_width=args.target,
            budget_left=budget - spent,
            batch_groups=args.batch,
            sd_floor=args.sd_floor,
            rule=rule,
        )
        if not picks:
            break
        for i in picks:  # every new place is rated before the next round (all pending done)
            taken[i] += 1
        spent += len(picks)
        rounds += 1
    return [seq[:n] for seq, n in zip(draws, taken)], rounds


def measure(drawn: list[list[int]], full: list[float]) -> dict[str, float]:
    widths = [interval_width(s) for s in drawn]
    means = [statistics.fmean(s) for s in drawn]
    covered = [abs(m - f) <= w / 2 for m, w, f in zip(means, widths, full)]
    return {
        "width": statistics.fmean(widths),
        "spearman": spearman(means, full),
        "coverage": statistics.fmean(covered),
        "rmse": statistics.fmean((m - f) ** 2 for m, f in zip(means, full)) ** 0.5,
        "ratings": sum(map(len, drawn)),
    }


def replay(data: Data, args: argparse.Namespace) -> list[dict]:
    """Every (budget, arm) over ``args.repeats`` seeds, each seed's arms on shared draws."""
    full = [statistics.fmean(obs) for _, obs in data]
    budgets = [int(b) for b in args.budgets.split(",")]
    arms = ["fixed", *args.rules.split(",")]
    runs: dict[tuple[int, str], list[dict[str, float]]] = {}
    for seed in range(args.repeats):
        draws = draw_sequences(data, max(args.maximum, *budgets), random.Random(seed))
        for per_sample in budgets:
            base = measure(fixed(draws, per_sample), full)
            runs.setdefault((per_sample, "fixed"), []).append(base | {"delta": 0.0})
            for rule in arms[1:]:
                drawn, _ = adaptive(data, draws, per_sample * len(data), args, rule)
                got = measure(drawn, full)
                got["delta"] = got["spearman"] - base["spearman"]
                runs.setdefault((per_sample, rule), []).append(got)
    return [summary(b, arm, runs[(b, arm)]) for b in budgets for arm in arms]


def summary(per_sample: int, arm: str, runs: list[dict[str, float]]) -> dict:
    row: dict = {"budget_per_sample": per_sample, "allocation": arm}
    for key in ("ratings", "width", "spearman", "delta", "coverage", "rmse"):
        values = [r[key] for r in runs]
        row[key] = statistics.fmean(values)
        row[f"{key}_sd"] = statistics.stdev(values) if len(values) > 1 else 0.0
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--budgets", default="4,5,6")
    parser.add_argument("--rules", default="widest,variance")
    parser.add_argument("--minimum", type=int, default=3)
    parser.add_argument("--maximum", type=int, default=9)
    parser.add_argument("--target", type=float, default=0.0)
    parser.add_argument("--batch", type=int, default=30)
    parser.add_argument("--sd-floor", type=float, default=0.5)
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--smoke", action="store_true", help="CI size: 300 samples, 2 replays, budget 4"
    )
    args = parser.parse_args()
    data = load()
    if args.smoke:
        data, args.repeats, args.budgets = data[:300], 2, "4"
    started = time.perf_counter()
    rows = replay(data, args)
    print(
        f"{len(data)} samples, {args.repeats} replays on shared draws, min {args.minimum}, max "
        f"{args.maximum}, target width {args.target}, SD floor {args.sd_floor}, "
        f"{args.batch} setups per batch"
    )
    print(
        "| budget (ratings/sample) | allocation | ratings used | mean 95% CI width "
        "| Spearman with full means "
        "| Spearman minus fixed (paired) | coverage of the full mean | RMSE to full means |"
    )
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        print(
            f"| {r['budget_per_sample']} | {r['allocation']} | {r['ratings']:.0f} | "
            f"{r['width']:.3f} ± {r['width_sd']:.3f} | "
            f"{r['spearman']:.4f} ± {r['spearman_sd']:.4f} | "
            f"{r['delta']:+.4f} ± {r['delta_sd']:.4f} | "
            f"{100 * r['coverage']:.1f} % ± {100 * r['coverage_sd']:.1f} | "
            f"{r['rmse']:.3f} ± {r['rmse_sd']:.3f} |"
        )
    print(f"({time.perf_counter() - started:.1f} s)")
    if args.json:
        args.json.write_text(
            json.dumps({"args": vars(args) | {"json": str(args.json)}, "rows": rows}, indent=2)
        )


if __name__ == "__main__":
    main()
