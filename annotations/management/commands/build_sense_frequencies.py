from django.core.management.base import BaseCommand, CommandError

from annotations.safe_input import InputError, load_path
from annotations.sense_frequency import match_senses, read_wordnet, write_table


class Command(BaseCommand):
    help = (
        "Write the SemCor frequency of every AmbiStory sense (data/wordnet/README.md): the "
        "senses of the given AmbiStory JSON files matched by gloss in WordNet 3.0's database "
        "(Debian's wordnet-base: /usr/share/wordnet), as a tab-separated table."
    )

    def add_arguments(self, parser):
        parser.add_argument("ambistory_json", nargs="+")
        parser.add_argument("--wordnet", default="/usr/share/wordnet")
        parser.add_argument("--out", default="data/wordnet/ambistory-sense-frequencies.tsv")

    def handle(self, *args, **opts):
        senses = []
        for path in opts["ambistory_json"]:
            try:
                records = load_path(path)
            except (InputError, OSError) as error:
                raise CommandError(f"{path}: {error}") from error
            if not isinstance(records, dict):
                raise CommandError(f"{path}: not an AmbiStory file (an object of samples)")
            senses += [(str(r["homonym"]), str(r["judged_meaning"])) for r in records.values()]
        try:
            wordnet = read_wordnet(opts["wordnet"])
        except OSError as error:
            raise CommandError(f"cannot read WordNet at {opts['wordnet']}: {error}") from error
        found, missing = match_senses(senses, wordnet)
        write_table(found, opts["out"])
        self.stdout.write(
            f"{len(found)} senses written to {opts['out']}; {len(missing)} unmatched:"
        )
        for homonym, gloss in missing:
            self.stdout.write(f"  {homonym}: {gloss}")
