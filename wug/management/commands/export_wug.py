from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from wug.exporters import export_words
from wug.models import Word


class Command(BaseCommand):
    help = "Write words in the DURel/WUG format: FOLDER/<uug|usg>/<word>/*.csv"

    def add_arguments(self, parser):
        parser.add_argument("folder")
        parser.add_argument("--word", action="append", help="only these words (repeatable)")

    def handle(self, *args, **opts):
        words = Word.objects.all()
        if opts["word"]:
            words = words.filter(name__in=opts["word"])
            missing = set(opts["word"]) - set(words.values_list("name", flat=True))
            if missing:
                raise CommandError(f"no such word: {', '.join(sorted(missing))}")
        for path in export_words(words, Path(opts["folder"])):
            self.stdout.write(str(path))
