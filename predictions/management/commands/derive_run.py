import json

from django.core.management.base import BaseCommand, CommandError

from predictions.errors import FitOnScoredSamples
from predictions.models import ModelRun
from predictions.runs.postprocess import run_derive


def runs(ids: str | None) -> list[ModelRun]:
    if not ids:
        return []
    wanted = [int(x) for x in ids.split(",") if x.strip()]
    found = ModelRun.objects.in_bulk(wanted)
    missing = [x for x in wanted if x not in found]
    if missing:
        raise CommandError(f"no run {missing[0]}")
    return [found[x] for x in wanted]


class Command(BaseCommand):
    help = (
        "Derive a scored run from finished runs: calibrate, squash, pair_blend or stack, "
        "fitted on another split's runs (--fit split), out-of-fold by homonym (--fit oof), "
        "or with given parameters (--fit none)."
    )

    def add_arguments(self, parser):
        parser.add_argument("kind", choices=["calibrate", "squash", "pair_blend", "stack"])
        parser.add_argument("--sources", required=True, help="run ids, comma-separated")
        parser.add_argument("--fit", default="oof", choices=["split", "oof", "none"])
        parser.add_argument("--fit-sources", help="the same backends' runs on another split")
        parser.add_argument("--params", default="{}")
        parser.add_argument("--folds", type=int, default=5)
        parser.add_argument("--name", default="")

    def handle(self, *args, **opts):
        sources = runs(opts["sources"])
        try:
            run = run_derive(
                name=opts["name"],
                kind=opts["kind"],
                sources=sources,
                fit=opts["fit"],
                fit_sources=runs(opts["fit_sources"]) or None,
                params=json.loads(opts["params"]),
                folds=opts["folds"],
            )
        except (FitOnScoredSamples, ValueError) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"run {run.pk}: {run.done} predictions; scores {run.scores}")
        self.stdout.write(f"fitted on {json.dumps(run.fitted_on)}")
