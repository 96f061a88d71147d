from django.core.management.base import BaseCommand, CommandError

from annotations.models import Split
from predictions.io.importers import ScoringError, run_upload


class Command(BaseCommand):
    help = "Import an official-format predictions jsonl as a finished, scored model run."

    def add_arguments(self, parser):
        parser.add_argument("file")
        parser.add_argument("--split", required=True)
        parser.add_argument("--dataset", default="ambistory")
        parser.add_argument("--name", default="")

    def handle(self, *args, **opts):
        try:
            split = Split.objects.get(dataset__name=opts["dataset"], name=opts["split"])
            with open(opts["file"], "rb") as handle:
                run = run_upload(
                    split=split, name=opts["name"] or opts["file"], file=handle, capped=False
                )
        except Split.DoesNotExist as exc:
            raise CommandError(f"no split {opts['dataset']}/{opts['split']}") from exc
        except OSError as exc:
            raise CommandError(str(exc)) from exc
        except ScoringError as exc:
            raise CommandError(f"{opts['file']}: {exc}; nothing was imported") from exc
        self.stdout.write(f"run {run.pk}: {run.done} predictions; scores {run.scores}")
