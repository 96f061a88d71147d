from django.core.management.base import BaseCommand, CommandError

from annotations.management.base import write_chunks
from predictions.io.exporters import iter_predictions_jsonl
from predictions.models import ModelRun


class Command(BaseCommand):
    help = 'Export a model run in the official prediction format ({"id", "prediction"}).'

    def add_arguments(self, parser):
        parser.add_argument("run", type=int, help="model run id")
        parser.add_argument("--output", "-o", default="-")

    def handle(self, *args, **opts):
        try:
            run = ModelRun.objects.get(pk=opts["run"])
        except ModelRun.DoesNotExist:
            raise CommandError(f"model run {opts['run']} does not exist") from None
        write_chunks(iter_predictions_jsonl(run), opts["output"])
