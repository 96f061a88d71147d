from django.core.management.base import BaseCommand, CommandError

from wug.annotators import DEFAULT_BACKEND, model_annotation_run, model_view
from wug.models import ModelAnnotation, Word


class Command(BaseCommand):
    help = (
        "Run a computational annotator over a word's human-judged use pairs in this process "
        "and print its Spearman with the human medians and its clusters."
    )

    def add_arguments(self, parser):
        parser.add_argument("word")
        parser.add_argument("--backend", default=DEFAULT_BACKEND)

    def handle(self, *args, **opts):
        word = Word.objects.filter(name=opts["word"]).first()
        if word is None:
            raise CommandError(f"no such word: {opts['word']} (import_wug first)")
        annotation = ModelAnnotation.objects.create(word=word, backend=opts["backend"])
        try:
            annotation = model_annotation_run(annotation.pk)
        except Exception as exc:
            raise CommandError(f"{word.name}: the annotator failed: {exc}") from exc
        view = model_view(annotation)
        rho = "-" if view.spearman is None else f"{view.spearman:.3f}"
        calibrated = ", ".join(annotation.calibration_words) or "none (linear map)"
        self.stdout.write(
            f"{word.name}: {view.pairs} pairs judged by {annotation.backend}; Spearman with "
            f"the human medians {rho}; {view.clusters} clusters (loss {view.loss:.1f}); "
            f"calibrated on: {calibrated}"
        )
