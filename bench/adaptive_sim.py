"""Replay simulation: adaptive allocation against a fixed number of ratings per sample.

Each AmbiStory sample (train + dev, 2,868 samples with 5 ratings each) is a population: a
simulated rating is a draw, with replacement, from that sample's observed five ratings. For
a budget of B ratings per sample on average:

* fixed: every sample gets B draws;
* adaptive: every sample starts with ``--minimum`` draws; growth rounds then call the site's
  own rule (``studies.adaptive.grow``: widest 95% interval first, at most ``--maximum`` per
  sample, setups as groups, ``--batch`` setups per participant) until the budget (B x
  samples) is spent or no sample is wider than the target.

Reported per budget and allocation, as the mean (and SD) over ``--repeats`` seeded replays:
the mean 95% interval width of the sample means, and Spearman's rho between the simulated
means and the full 5-rating means of the data.

    python bench/adaptive_sim.py [--repeats 20] [--budgets 4,5,6] [--json out.json]
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


def fixed(data, per_sample: int, rng: random.Random) -> list[list[int]]:
    return [[rng.choice(obs) for _ in range(per_sample)] for _, obs in data]


def adaptive(data, budget: int, args, rng: random.Random) -> tuple[list[list[int]], int]:
    drawn = [[rng.choice(obs) for _ in range(args.minimum)] for _, obs in data]
    spent, rounds = args.minimum * len(data), 0
    while spent < budget:
        states = [
            SampleState(key=i, group=data[i][0], scores=tuple(s), wanted=len(s), pending=0)
            for i, s in enumerate(drawn)
        ]
        picks = grow(
            states,
            maximum=args.maximum,
            target_width=args.target,
            budget_left=budget - spent,
            batch_groups=args.batch,
            sd_floor=args.sd_floor,
        )
        if not picks:
            break
        for i in picks:  # every new place is rated before the next round (all pending done)
            drawn[i].append(rng.choice(data[i][1]))
        spent += len(picks)
        rounds += 1
    return drawn, rounds


def measure(drawn: list[list[int]], full: list[float]) -> tuple[float, float, float]:
    widths = [interval_width(s) for s in drawn]
    means = [statistics.fmean(s) for s in drawn]
    rmse = statistics.fmean((m - f) ** 2 for m, f in zip(means, full)) ** 0.5
    return statistics.fmean(widths), spearman(means, full), rmse


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--budgets", default="4,5,6")
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
    full = [statistics.fmean(obs) for _, obs in data]
    started = time.perf_counter()
    rows = []
    for per_sample in (int(b) for b in args.budgets.split(",")):
        budget = per_sample * len(data)
        for name in ("fixed", "adaptive"):
            widths, rhos, sizes, errors = [], [], [], []
            for seed in range(args.repeats):
                rng = random.Random(seed)
                if name == "fixed":
                    drawn = fixed(data, per_sample, rng)
                else:
                    drawn, _ = adaptive(data, budget, args, rng)
                w, r, e = measure(drawn, full)
                widths.append(w)
                errors.append(e)
                rhos.append(r)
                sizes.append(sum(map(len, drawn)))
            rows.append(
                {
                    "budget_per_sample": per_sample,
                    "allocation": name,
                    "ratings_used": statistics.fmean(sizes),
                    "mean_width": statistics.fmean(widths),
                    "mean_width_sd": statistics.stdev(widths) if len(widths) > 1 else 0.0,
                    "spearman": statistics.fmean(rhos),
                    "spearman_sd": statistics.stdev(rhos) if len(rhos) > 1 else 0.0,
                    "rmse": statistics.fmean(errors),
                }
            )
    print(
        f"{len(data)} samples, {args.repeats} replays, min {args.minimum}, max "
        f"{args.maximum}, target width {args.target}, SD floor {args.sd_floor}, "
        f"{args.batch} setups per batch"
    )
    print(
        "| budget (ratings/sample) | allocation | ratings used | mean 95% CI width | "
        "Spearman with full 5-rating means | RMSE to full means |"
    )
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for row in rows:
        print(
            f"| {row['budget_per_sample']} | {row['allocation']} | {row['ratings_used']:.0f} | "
            f"{row['mean_width']:.3f} ± {row['mean_width_sd']:.3f} | "
            f"{row['spearman']:.4f} ± {row['spearman_sd']:.4f} | {row['rmse']:.3f} |"
        )
    print(f"({time.perf_counter() - started:.1f} s)")
    if args.json:
        args.json.write_text(
            json.dumps({"args": vars(args) | {"json": str(args.json)}, "rows": rows}, indent=2)
        )


if __name__ == "__main__":
    main()
