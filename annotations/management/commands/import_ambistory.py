import json

from django.core.management.base import BaseCommand, CommandError

from annotations.importers import AmbiStoryFormatError, ambistory_import, parse_ambistory


class Command(BaseCommand):
    help = "Import an AmbiStory JSON file (all or nothing; re-importing changes nothing)."

    def add_arguments(self, parser):
        parser.add_argument("file")
        parser.add_argument("--split", required=True, help="e.g. train or dev")
        parser.add_argument("--dataset", default="ambistory")

    def handle(self, *args, **opts):
        try:
            with open(opts["file"], encoding="utf-8") as handle:
                data = json.load(handle)
        except OSError as exc:
            raise CommandError(f"cannot read {opts['file']}: {exc}") from exc
        except json.JSONDecodeError as exc:
            raise CommandError(f"{opts['file']} is not valid JSON: {exc}") from exc
        try:
            samples = parse_ambistory(data)
            report = ambistory_import(
                samples=samples, split=opts["split"], dataset=opts["dataset"]
            )
        except AmbiStoryFormatError as exc:
            raise CommandError(f"{opts['file']}: {exc}; nothing was imported") from exc
        self.stdout.write(
            f"{report.split}: {report.samples_created} samples and "
            f"{report.ratings_created} ratings imported, {report.setups_created} new setups, "
            f"{report.samples_existing} samples already present"
        )
