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
        "or nothing; re-importing changes nothing. Try data/fool/fool-sample.json. With "
        "--sensebench-senses, the file is sensebench items (JSON lines) and the option names "
        "their sense inventory. With --fool, the path is a folder of FOOL items in the "
        "CoarseWSD-20 layout (one folder per word; --fool-glosses gives the labels' glosses)."
    )

    def add_arguments(self, parser):
        parser.add_argument("file")
        parser.add_argument("--sensebench-senses", metavar="SENSES_JSON")
        parser.add_argument("--fool", action="store_true")
        parser.add_argument("--fool-glosses", metavar="GLOSSES_JSON")
        parser.add_argument("--dataset")
        parser.add_argument("--title")
        parser.add_argument("--split", default="test")

    def handle(self, *args, **opts):
        with import_errors(opts["file"], SenseChoiceFormatError):
            if opts["fool"]:
                from annotations.fool import load_fool

                data = load_fool(
                    opts["file"], dataset=opts["dataset"] or "fool",
                    title=opts["title"] or "FOOL items", glosses_path=opts["fool_glosses"],
                )  # fmt: skip
            elif opts["sensebench_senses"]:
                from annotations.sensebench import load_sensebench

                data = load_sensebench(
                    opts["file"], opts["sensebench_senses"],
                    dataset=opts["dataset"] or "sensebench",
                    title=opts["title"] or "sensebench items", split=opts["split"],
                )  # fmt: skip
            else:
                data = load_sense_choice(opts["file"])
            report = sense_choice_import(data=data)
        sets = ", ".join(f"{name or '-'}: {n}" for name, n in sorted(report.sets.items()))
        self.stdout.write(
            f"{data.dataset}/{data.split}: {report.items} items ({report.items_created} new); "
            f"per set {sets}"
        )
