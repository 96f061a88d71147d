from django.core.management.base import BaseCommand, CommandError

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
        try:
            data = load_sense_choice(opts["file"])
            report = sense_choice_import(data=data)
        except OSError as exc:
            raise CommandError(f"cannot read {opts['file']}: {exc}") from exc
        except SenseChoiceFormatError as exc:
            raise CommandError(f"{opts['file']}: {exc}; nothing was imported") from exc
        sets = ", ".join(f"{name or '-'}: {n}" for name, n in sorted(report.sets.items()))
        self.stdout.write(
            f"{data.dataset}/{data.split}: {report.items} items ({report.items_created} new); "
            f"per set {sets}"
        )
