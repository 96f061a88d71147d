import json

from django.core.management.base import BaseCommand, CommandError

from predictions.evaluation import ScoringError, parse_predictions, parse_reference, score


class Command(BaseCommand):
    help = "Score a prediction jsonl against a reference jsonl like the official scorer."

    def add_arguments(self, parser):
        parser.add_argument("reference")
        parser.add_argument("predictions")
        parser.add_argument("output", help="where to write scores.json")

    def handle(self, *args, **opts):
        try:
            with open(opts["reference"], "rb") as handle:
                reference = parse_reference(handle)
            with open(opts["predictions"], "rb") as handle:
                predictions = parse_predictions(handle, list(reference))
            result = score(reference, predictions)
        except OSError as exc:
            raise CommandError(str(exc)) from exc
        except ScoringError as exc:
            raise CommandError(f"{opts['predictions']}: {exc}") from exc
        self.stdout.write(f"Spearman Correlation: {result.spearman}")
        self.stdout.write(f"Accuracy: {result.accuracy} ({result.correct}/{result.total})")
        with open(opts["output"], "w", encoding="utf-8") as handle:
            json.dump(result.as_official(), handle)
        self.stdout.write(json.dumps(result.as_official()))
