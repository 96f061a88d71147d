from pathlib import Path

from django.core.management.base import BaseCommand

from ambisite.commands import import_errors
from wug.formats import WugFormatError, read_folder
from wug.services import WugImportError, wug_import


class Command(BaseCommand):
    help = (
        "Import Word Usage Graphs in the DURel/WUG format (a folder of word folders, each "
        "with uses.csv and judgments.csv, and senses.csv for usage-sense graphs), all or "
        "nothing; re-importing the same files changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("folder", help="e.g. data/wug")
        parser.add_argument(
            "--replace", action="store_true", help="replace words imported with other files"
        )

    def handle(self, *args, **opts):
        with import_errors(opts["folder"], (WugFormatError, WugImportError), name_path=False):
            words = read_folder(Path(opts["folder"]))
            report = wug_import(words=words, replace=opts["replace"])
        for name, (uses, judgments, state) in report.words.items():
            self.stdout.write(f"{name}: {uses} uses, {judgments} judgments ({state})")
        self.stdout.write(f"{len(report.words)} words, {report.created} new or replaced")
