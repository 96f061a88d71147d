from django.core.management.base import BaseCommand, CommandError

from wug.crowd import CrowdError, crowd_study_create, words_named
from wug.crowd_gold import parse_gold
from wug.crowd_reads import gold_warning, round_progress, study_golds


class Command(BaseCommand):
    help = (
        "Start a use-pair (DURel) crowd study of one or more imported usage-usage words: a "
        "draft study with its gold pairs and round 1 of random pairs (open it on its page)."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug", help="the study's short name (/s/<slug>/)")
        parser.add_argument("words", nargs="+")
        parser.add_argument("--title", default="")
        parser.add_argument("--pairs-per-round", type=int, default=30)
        parser.add_argument("--judgments-per-pair", type=int, default=3)
        parser.add_argument("--pairs-per-participant", type=int, default=20)
        parser.add_argument("--gold-pairs", type=int, default=6)
        parser.add_argument("--gold-per-participant", type=int, default=2)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument(
            "--gold",
            action="append",
            default=[],
            metavar="[WORD:]USE1,USE2,ANSWER[,TOLERANCE]",
            help="a gold pair of your own (repeatable): two use identifiers and the expected "
            "answer 1-4 (tolerance 0-1; default 1 for 1 and 4, 0 for 2 and 3); WORD when the "
            "study has several words. Automatic gold pairs fill up to --gold-pairs.",
        )

    def handle(self, *args, **opts):
        names = opts["words"]
        try:
            words = words_named(names)
            gold = [parse_gold(text) for text in opts["gold"]]
            crowd = crowd_study_create(
                words=words,
                title=opts["title"] or f"Use pairs of {', '.join(sorted(names))}",
                slug=opts["slug"],
                pairs_per_round=opts["pairs_per_round"],
                judgments_per_pair=opts["judgments_per_pair"],
                pairs_per_participant=opts["pairs_per_participant"],
                gold_pairs_total=opts["gold_pairs"],
                gold_per_participant=opts["gold_per_participant"],
                seed=opts["seed"],
                gold=gold,
            )
        except (CrowdError, ValueError) as exc:
            raise CommandError(str(exc)) from exc
        first = round_progress(crowd)[0]
        self.stdout.write(
            f"{crowd.study.slug}: draft study {crowd.study.pk}, round 1 with {first.pairs} "
            f"pairs, {crowd.study.check_questions.count()} gold pairs"
        )
        warning = gold_warning(study_golds(crowd.study_id))
        if warning:
            self.stderr.write(f"warning: {warning}")
