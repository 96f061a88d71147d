import json

from django.core.management.base import BaseCommand, CommandError

from annotations.models import Split
from predictions.runs.services import run_create
from predictions.runs.worker import run_execute


class Command(BaseCommand):
    help = "Create a model run over a split; queue it for a worker or run it here (--now)."

    def add_arguments(self, parser):
        parser.add_argument("--backend", required=True)
        parser.add_argument("--split", required=True, help="e.g. dev")
        parser.add_argument("--dataset", default="ambistory")
        parser.add_argument("--params", default="{}", help="backend parameters as JSON")
        parser.add_argument(
            "--fit-split", default="", help="split(s) the backend fits on, e.g. train or train,dev"
        )
        parser.add_argument("--name", default="")
        parser.add_argument("--now", action="store_true", help="run in this process")

    def handle(self, *args, **opts):
        try:
            split = Split.objects.get(dataset__name=opts["dataset"], name=opts["split"])
            run = run_create(
                name=opts["name"],
                backend=opts["backend"],
                params=json.loads(opts["params"]),
                split=split,
                fit_split=opts["fit_split"],
                enqueue=not opts["now"],
            )
        except Split.DoesNotExist as exc:
            raise CommandError(f"no split {opts['dataset']}/{opts['split']}") from exc
        except ValueError as exc:  # bad JSON, PredictionsError, a value a backend refuses
            raise CommandError(str(exc)) from exc
        if not opts["now"]:
            self.stdout.write(f"run {run.pk} queued ({run.total} samples)")
            return
        executed = run_execute(run.pk, worker="manage.py")
        if executed is None:
            raise CommandError(f"run {run.pk} is held by another worker")
        run = executed
        self.stdout.write(f"run {run.pk} {run.status}: {run.done}/{run.total}; {run.scores}")
        if run.status != run.Status.SUCCEEDED:
            raise CommandError(run.error or run.status)
