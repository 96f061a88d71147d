from django.core.management.base import BaseCommand

from ambisite.commands import import_errors
from annotations.sensechoice import (
    SenseChoiceFormatError,
    load_sense_choice,
    sense_choice_import,
)


class Command(BaseCommand):
    help = (
        "Import sense-choice items (ambisite-sense-choice-v1 JSON, docs/task-kinds.md), all "
        "or nothing; re-importing changes nothing. Try data/fool/fool-sample.json."
    )

    def add_arguments(self, parser):
        parser.add_argument("file")

    def handle(self, *args, **opts):
        with import_errors(opts["file"], SenseChoiceFormatError):
            data = load_sense_choice(opts["file"])
            report = sense_choice_import(data=data)
        sets = ", ".join(f"{name or '-'}: {n}" for name, n in sorted(report.sets.items()))
        self.stdout.write(
            f"{data.dataset}/{data.split}: {report.items} items ({report.items_created} new); "
            f"per set {sets}"
        )
