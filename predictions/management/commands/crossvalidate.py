"""``crossvalidate``: a backend configuration's grouped cross-validation estimate.

    python manage.py crossvalidate --backend quality --params '{"encoder": "none"}' \
        --folds 5 --seeds 3 [--splits train,dev] [--output bench/results/ml_cv.json]

Folds are grouped by homonym over the labelled splits together (predictions.selection);
the backend is built fresh for every fold and fitted (``prepare``) on the other folds only,
so anything it tunes itself is tuned inside the training folds (nested). Prints one line
per fold and merges the result into the output JSON under ``--label``.
"""

from __future__ import annotations

import json
import platform
import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from predictions.backends import UnknownBackend, get_backend
from predictions.io.files import predict_samples
from predictions.management.commands.predict import read_samples, show_progress
from predictions.runs.artifacts import backend_for
from predictions.selection import FitPredict, cross_validate


def labelled_samples(splits: list[str], data_dir: Path) -> list[dict]:
    """The labelled samples of ``splits`` (AmbiStory files in ``data_dir``), with ids
    prefixed by their split (``train:0``, ``dev:0``) so that they stay unique."""
    out = []
    for split in splits:
        path = data_dir / f"{split}.json"
        if not path.is_file():
            raise CommandError(f"no split file {path}")
        out += [
            {**s, "id": f"{split}:{s['id']}"} for s in read_samples(str(path), allow_redacted=False)
        ]
    return out


def backend_fit_predict(name: str, params: dict) -> FitPredict:
    """``fit_predict`` for :func:`cross_validate`: a fresh backend per fold, prepared on the
    fit samples, predicting through the runner's own loop (whole stories per batch)."""
    get_backend(name, **params)  # refuse bad parameters before any fold runs

    def fit_predict(fit: list[dict], test: list[dict]) -> list[float]:
        backend = backend_for(name, params)
        return [out.score for out in predict_samples(backend, test, fit)]

    return fit_predict


def write_result(output: Path, label: str, entry: dict) -> None:
    """Merge ``entry`` into ``output`` (a JSON file of ``{"configs": {label: entry}}``)."""
    data = json.loads(output.read_text()) if output.is_file() else {}
    data.setdefault("configs", {})[label] = entry
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(data, indent=1) + "\n")


class Command(BaseCommand):
    help = "Grouped (by homonym) cross-validation of a backend configuration over train+dev."

    def add_arguments(self, parser):
        parser.add_argument("--backend", required=True)
        parser.add_argument("--params", default="{}", help="backend parameters as JSON")
        parser.add_argument("--folds", type=int, default=5)
        parser.add_argument("--seeds", type=int, default=3, help="repeats (seeds 0..N-1)")
        parser.add_argument("--splits", default="train,dev", help="labelled splits to pool")
        parser.add_argument("--data-dir", default="", help="default: data/ambistory")
        parser.add_argument("--output", default="bench/results/ml_cv.json")
        parser.add_argument("--label", default="", help="key in the output (default: config)")

    def handle(self, *args, **opts):
        try:
            params = json.loads(opts["params"])
            fit_predict = backend_fit_predict(opts["backend"], params)
        except (json.JSONDecodeError, UnknownBackend, TypeError, ValueError) as exc:
            raise CommandError(str(exc)) from exc
        show_progress(opts["verbosity"])
        splits = [s.strip() for s in opts["splits"].split(",") if s.strip()]
        data_dir = Path(opts["data_dir"] or Path(settings.BASE_DIR) / "data" / "ambistory")
        samples = labelled_samples(splits, data_dir)
        seeds = list(range(opts["seeds"]))
        self.stdout.write(
            f"{opts['backend']} {json.dumps(params)}: {len(samples)} samples of "
            f"{'+'.join(splits)}, {opts['folds']} folds grouped by homonym x seeds {seeds}"
        )
        started = time.perf_counter()
        try:
            result = cross_validate(
                samples,
                fit_predict,
                folds=opts["folds"],
                seeds=seeds,
                log=lambda line: self.stdout.write(line),
            )
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        summary = result.summary()
        for metric in ("accuracy", "spearman"):
            s = summary[metric]
            if s:
                self.stdout.write(
                    f"{metric}: mean {s['mean']:.4f}, 95% interval [{s['low']:.4f}, "
                    f"{s['high']:.4f}] ({s['kind']}, n={s['n']}), pooled "
                    f"{summary['pooled_' + metric]}"
                )
        label = opts["label"] or f"{opts['backend']} {json.dumps(params, sort_keys=True)}"
        entry = {
            "backend": opts["backend"],
            "params": params,
            "splits": splits,
            "n_samples": len(samples),
            "n_folds": opts["folds"],
            "seeds": seeds,
            "wall_seconds": round(time.perf_counter() - started, 1),
            "python": platform.python_version(),
            **result.as_dict(),
        }
        write_result(Path(opts["output"]), label, entry)
        self.stdout.write(f"wrote {opts['output']} [{label}]")
