from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from predictions.io.codabench import ARCHIVE_MEMBER, write_codabench_zip
from predictions.models import ModelRun


class Command(BaseCommand):
    help = "Write a CodaBench-ready zip for a model run (predictions.jsonl at the root)."

    def add_arguments(self, parser):
        parser.add_argument("run", type=int, help="model run id")
        parser.add_argument("--output", "-o", required=True, help="path of the zip to write")

    def handle(self, *args, **opts):
        try:
            run = ModelRun.objects.get(pk=opts["run"])
        except ModelRun.DoesNotExist:
            raise CommandError(f"model run {opts['run']} does not exist") from None
        path = Path(opts["output"])
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as target:
            write_codabench_zip(run, target)
        self.stdout.write(f"wrote {path} ({ARCHIVE_MEMBER} for run {run.pk})")
