from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

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
        try:
            words = read_folder(Path(opts["folder"]))
            report = wug_import(words=words, replace=opts["replace"])
        except OSError as exc:
            raise CommandError(f"cannot read {opts['folder']}: {exc}") from exc
        except (WugFormatError, WugImportError) as exc:
            raise CommandError(f"{exc}; nothing was imported") from exc
        for name, (uses, judgments, state) in report.words.items():
            self.stdout.write(f"{name}: {uses} uses, {judgments} judgments ({state})")
        self.stdout.write(f"{len(report.words)} words, {report.created} new or replaced")
