from django.core.management.base import BaseCommand

from ambisite.commands import import_errors
from ambisite.progress import command_steps
from annotations.importers import AmbiStoryFormatError, ambistory_import, load_ambistory


class Command(BaseCommand):
    help = "Import an AmbiStory JSON file (all or nothing; re-importing changes nothing)."

    def add_arguments(self, parser):
        parser.add_argument("file")
        parser.add_argument("--split", required=True, help="e.g. train or dev")
        parser.add_argument("--dataset", default="ambistory")

    def handle(self, *args, **opts):
        with import_errors(opts["file"], AmbiStoryFormatError):
            samples = load_ambistory(opts["file"])
            if opts["verbosity"] > 0:
                note = f"import: read {len(samples)} samples from {opts['file']}"
                self.stderr.write(note, style_func=str)
            report = ambistory_import(
                samples=samples,
                split=opts["split"],
                dataset=opts["dataset"],
                on_ratings=command_steps(self, opts["verbosity"], label="import (ratings)"),
            )
        self.stdout.write(
            f"{report.split}: {report.samples_created} samples and "
            f"{report.ratings_created} ratings imported, {report.setups_created} new setups, "
            f"{report.samples_existing} samples already present"
        )
