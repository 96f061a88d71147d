import json

from django.core.management.base import BaseCommand, CommandError

from ambisite.progress import command_steps
from annotations.models import Split
from predictions.models import ModelRun, TrainedModel
from predictions.runs.rows import split_names
from predictions.runs.services import trained_model_create
from predictions.runs.training import trained_model_train


class Command(BaseCommand):
    help = (
        "Fine-tune MiniLM on a split as a cross-encoder (or --kind biencoder); "
        "queue it or train here (--now)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--split", default="train", help="a split, or several: train,dev")
        parser.add_argument("--dataset", default="ambistory")
        parser.add_argument("--name", default="")
        parser.add_argument("--kind", default="crossencoder", choices=TrainedModel.Kind.values)
        parser.add_argument("--params", default="{}", help='e.g. {"epochs": 3, "limit": 16}')
        parser.add_argument("--now", action="store_true", help="train in this process")

    def handle(self, *args, **opts):
        names = split_names(opts["split"]) or ["train"]
        try:
            params = json.loads(opts["params"])
            split = Split.objects.get(dataset__name=opts["dataset"], name=names[0])
            model = trained_model_create(
                name=opts["name"],
                split=split,
                kind=opts["kind"],
                params=params,
                fit_split=names if len(names) > 1 else "",
            )
        except Split.DoesNotExist as exc:
            raise CommandError(f"no split {opts['dataset']}/{names[0]}") from exc
        except (json.JSONDecodeError, ValueError) as exc:
            raise CommandError(str(exc)) from exc
        if not opts["now"]:
            self.stdout.write(f"training job {model.pk} queued")
            return
        progress = command_steps(self, opts["verbosity"], label="train (optimiser steps)")
        model = trained_model_train(model_id=model.pk, on_step=progress)
        self.stdout.write(model.log)
        if model.status != ModelRun.Status.SUCCEEDED:
            raise CommandError(model.error or model.status)
        self.stdout.write(f"trained model {model.pk} {model.status} at {model.directory()}")
